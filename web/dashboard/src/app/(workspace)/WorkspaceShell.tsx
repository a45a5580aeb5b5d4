"use client";

// Every page inside a workspace: needs a signed-in person with a selected workspace (else
// /login or the picker), keeps the workspace token renewed, holds the hub connection, and
// shows the header: navigation, the workspace switcher, connection state, sign out.

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useMemo } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { roleLabel } from "@/api/types";
import { useApi } from "@/app/providers";
import { HubProvider, useHub } from "@/realtime/HubProvider";
import { signOut, type WorkspaceSession } from "@/session/store";
import { useSelectWorkspace } from "@/session/useSelectWorkspace";
import { useSession } from "@/session/useSession";
import { useTokenRenewal } from "@/session/useTokenRenewal";
import { WorkspaceContext } from "./WorkspaceContext";

export function WorkspaceShell({ children }: { children: ReactNode }) {
  const { session, ready } = useSession();
  const router = useRouter();
  const { userToken, workspace } = session;
  useEffect(() => {
    if (!ready) return;
    if (!userToken) router.replace("/login");
    else if (!workspace) router.replace("/workspaces");
  }, [ready, userToken, workspace, router]);
  if (!ready || !userToken || !workspace) {
    return (
      <p className="page-loading" role="status">
        Loading…
      </p>
    );
  }
  return <SignedInShell workspace={workspace}>{children}</SignedInShell>;
}

function SignedInShell({ workspace, children }: { workspace: WorkspaceSession; children: ReactNode }) {
  const api = useApi();
  useTokenRenewal(workspace.id, workspace.expiresAt);
  const profile = useQuery({
    queryKey: keys.profile(workspace.id),
    queryFn: () => unwrap(api.workspace.GET("/api/me/profile")),
  });
  const me = profile.data ?? null;
  const context = useMemo(
    () => ({ workspace, me, isOwner: (me?.role ?? workspace.role) === "admin" }),
    [workspace, me],
  );
  return (
    <WorkspaceContext.Provider value={context}>
      <HubProvider workspaceId={workspace.id} token={workspace.token} meId={me?.id ?? null}>
        <div className="app">
          <Header workspace={workspace} isOwner={context.isOwner} />
          <main id="main" className="app-main" tabIndex={-1}>
            {children}
          </main>
        </div>
      </HubProvider>
    </WorkspaceContext.Provider>
  );
}

const NAV = [
  { href: "/inbox", label: "Inbox", ownerOnly: false },
  { href: "/tickets", label: "Tickets", ownerOnly: false },
  { href: "/team", label: "Team", ownerOnly: false },
  { href: "/settings", label: "Settings", ownerOnly: true },
  { href: "/profile", label: "Profile", ownerOnly: false },
];

const HUB_STATE_TEXT = { connecting: "Connecting…", connected: "Live", reconnecting: "Reconnecting…", closed: "Offline" };

function Header({ workspace, isOwner }: { workspace: WorkspaceSession; isOwner: boolean }) {
  const pathname = usePathname();
  const { state } = useHub();
  return (
    <header className="app-header">
      <Link href="/inbox" className="brand">
        Support Desk
      </Link>
      <nav aria-label="Main">
        <ul>
          {NAV.filter((item) => isOwner || !item.ownerOnly).map((item) => {
            const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
            return (
              <li key={item.href}>
                <Link href={item.href} aria-current={current ? "page" : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="header-end">
        <span className={`hub-state hub-${state}`} role="status" aria-label={`Live updates: ${HUB_STATE_TEXT[state]}`}>
          {HUB_STATE_TEXT[state]}
        </span>
        <WorkspaceSwitcher workspace={workspace} />
        <span className="muted">{roleLabel(workspace.role)}</span>
        <button type="button" className="ghost" onClick={() => signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}

const ALL_WORKSPACES = "__all__";

function WorkspaceSwitcher({ workspace }: { workspace: WorkspaceSession }) {
  const api = useApi();
  const router = useRouter();
  const select = useSelectWorkspace();
  const list = useQuery({ queryKey: keys.workspaces, queryFn: () => unwrap(api.user.GET("/workspaces")) });
  const workspaces = list.data?.workspaces ?? [{ id: workspace.id, name: workspace.name, slug: workspace.slug, role: workspace.role }];
  return (
    <div className="switcher">
      <label htmlFor="workspace-switcher">Workspace</label>
      <select
        id="workspace-switcher"
        value={workspace.id}
        disabled={select.isPending}
        onChange={(event) => {
          const id = event.target.value;
          if (id === ALL_WORKSPACES) router.push("/workspaces");
          else if (id !== workspace.id) select.mutate(id);
        }}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
        <option value={ALL_WORKSPACES}>All workspaces…</option>
      </select>
      {select.error ? (
        <span role="alert" className="error">
          {select.error.message}
        </span>
      ) : null}
    </div>
  );
}
