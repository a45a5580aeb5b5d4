"use client";

// Every page inside a workspace: needs a signed-in person with a selected workspace (else
// /login or the picker), keeps the workspace token renewed, holds the hub connection, and
// shows the header: navigation, the workspace switcher, connection state, sign out. On a
// phone the header folds into a "Menu" disclosure. It also carries out notifications (desktop,
// tone, the tab title's unread count), reminds an unverified account to verify, and opens the
// search box from the header's button or Ctrl/Cmd+K.

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useId, useMemo, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { roleLabel } from "@/api/types";
import { useApi } from "@/app/providers";
import { SearchDialog } from "@/components/search/SearchDialog";
import { ErrorMessage, StatusMessage } from "@/components/ui";
import { isSearchShortcut } from "@/lib/search";
import { NotificationPermissionContext, useSharedNotificationPermission } from "@/notifications/context";
import { offerPermission, openConversationFromPath } from "@/notifications/decide";
import { useNotificationPermission, useOfferDismissed } from "@/notifications/permission";
import { useNotifications } from "@/notifications/useNotifications";
import { HubProvider, useHub } from "@/realtime/HubProvider";
import { signOut, type WorkspaceSession } from "@/session/store";
import { useSelectWorkspace } from "@/session/useSelectWorkspace";
import { useSession } from "@/session/useSession";
import { useTokenRenewal } from "@/session/useTokenRenewal";
import { useWorkspace, WorkspaceContext } from "./WorkspaceContext";

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
  const permission = useNotificationPermission();
  return (
    <WorkspaceContext.Provider value={context}>
      <NotificationPermissionContext.Provider value={permission}>
        <HubProvider workspaceId={workspace.id} token={workspace.token} meId={me?.id ?? null}>
          <Notifications workspaceId={workspace.id} />
          <div className="app">
            <Header workspace={workspace} isOwner={context.isOwner} />
            <VerifyEmailReminder />
            <NotificationOffer />
            <main id="main" className="app-main" tabIndex={-1}>
              {children}
            </main>
          </div>
        </HubProvider>
      </NotificationPermissionContext.Provider>
    </WorkspaceContext.Provider>
  );
}

/** Inside the hub's provider, which it listens to. Renders nothing. */
function Notifications({ workspaceId }: { workspaceId: string }) {
  const { me } = useWorkspace();
  const pathname = usePathname();
  const { permission } = useSharedNotificationPermission();
  useNotifications({ workspaceId, me, openConversationId: openConversationFromPath(pathname), permission });
  return null;
}

/** Offers desktop notifications once, from a click, to an agent whose profile wants them. */
function NotificationOffer() {
  const { me } = useWorkspace();
  const { permission, request } = useSharedNotificationPermission();
  const [dismissed, dismiss] = useOfferDismissed();
  if (!me || !offerPermission(permission, me.notificationPreferences.desktop, dismissed)) return null;
  return (
    <aside className="shell-banner" aria-label="Desktop notifications">
      <p>Get a desktop notification for new chats, replies in your conversations and mentions, even in another tab.</p>
      <div className="row">
        <button type="button" onClick={() => void request()}>
          Enable desktop notifications
        </button>
        <button type="button" className="ghost" onClick={dismiss}>
          Not now
        </button>
      </div>
    </aside>
  );
}

/** Until the account's address is verified; asked again whenever the tab comes back. */
function VerifyEmailReminder() {
  const api = useApi();
  const account = useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.user.GET("/auth/me")), refetchOnWindowFocus: "always" });
  const resend = useMutation({ mutationFn: () => unwrap(api.user.POST("/auth/resend-verification")) });
  if (!account.data || account.data.emailVerified) return null;
  return (
    <aside className="shell-banner" aria-label="Verify your email">
      <p>
        We sent a verification link to {account.data.email}. Until you verify, you can own one workspace and cannot invite
        anyone.
      </p>
      {resend.isSuccess ? <StatusMessage>{resend.data.message}</StatusMessage> : null}
      <ErrorMessage error={resend.error} />
      <button type="button" className="ghost" onClick={() => resend.mutate()} disabled={resend.isPending}>
        Resend verification email
      </button>
    </aside>
  );
}

const NAV = [
  { href: "/inbox", label: "Inbox", ownerOnly: false },
  { href: "/tickets", label: "Tickets", ownerOnly: false },
  { href: "/team", label: "Team", ownerOnly: false },
  { href: "/reports", label: "Reports", ownerOnly: false },
  { href: "/settings", label: "Settings", ownerOnly: true },
  { href: "/profile", label: "Profile", ownerOnly: false },
];

const HUB_STATE_TEXT = { connecting: "Connecting…", connected: "Live", reconnecting: "Reconnecting…", closed: "Offline" };

function Header({ workspace, isOwner }: { workspace: WorkspaceSession; isOwner: boolean }) {
  const pathname = usePathname();
  const { state } = useHub();
  const menuId = useId();
  // The phone layout's disclosure (CSS shows the button below 768 px only): open on the page
  // where it was opened, so navigating closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === pathname;
  const [searching, setSearching] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      event.preventDefault();
      setSearching(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <header className={`app-header${menuOpen ? " menu-open" : ""}`}>
      <Link href="/inbox" className="brand">
        Support Desk
      </Link>
      <span className={`hub-dot hub-${state}`} aria-hidden="true" title={HUB_STATE_TEXT[state]} />
      <button type="button" className="ghost menu-toggle" aria-expanded={menuOpen} aria-controls={menuId} onClick={() => setOpenOn(menuOpen ? null : pathname)}>
        Menu
      </button>
      <div className="header-menu" id={menuId}>
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
          <button type="button" className="ghost search-open" aria-keyshortcuts="Control+K Meta+K" onClick={() => setSearching(true)}>
            Search<kbd aria-hidden="true">Ctrl K</kbd>
          </button>
          <span className={`hub-state hub-${state}`} role="status" aria-label={`Live updates: ${HUB_STATE_TEXT[state]}`}>
            {HUB_STATE_TEXT[state]}
          </span>
          <WorkspaceSwitcher workspace={workspace} />
          <span className="muted">{roleLabel(workspace.role)}</span>
          <button type="button" className="ghost" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </div>
      <SearchDialog workspaceId={workspace.id} open={searching} onClose={() => setSearching(false)} />
    </header>
  );
}

function WorkspaceSwitcher({ workspace }: { workspace: WorkspaceSession }) {
  const api = useApi();
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
          if (id !== workspace.id) select.mutate(id);
        }}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
      <Link href="/workspaces" className="switcher-all">
        All workspaces
      </Link>
      {select.error ? (
        <span role="alert" className="error">
          {select.error.message}
        </span>
      ) : null}
    </div>
  );
}
