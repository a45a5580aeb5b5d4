"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { roleLabel } from "@/api/types";
import { ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { currentNotice } from "@/session/notices";
import { signOut } from "@/session/store";
import { useSelectWorkspace } from "@/session/useSelectWorkspace";
import { useSession } from "@/session/useSession";

export function WorkspacePicker() {
  const api = useApi();
  const queryClient = useQueryClient();
  const { session } = useSession();
  const select = useSelectWorkspace();
  // The address is usually verified in another tab (the emailed link): asked again on coming
  // back, so the "verify" callout and notice go once it is done.
  const me = useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.user.GET("/auth/me")), refetchOnWindowFocus: "always" });
  // Why the person is here (access ended, welcome); cleared on entering a workspace.
  const notice = currentNotice(session.notice, me.data?.emailVerified);

  const workspaces = useQuery({ queryKey: keys.workspaces, queryFn: () => unwrap(api.user.GET("/workspaces")) });
  const resend = useMutation({ mutationFn: () => unwrap(api.user.POST("/auth/resend-verification")) });
  const create = useMutation({
    mutationFn: (body: { name: string; slug: string | null }) => unwrap(api.user.POST("/workspaces", { body })),
    onSuccess: async (workspace) => {
      await queryClient.invalidateQueries({ queryKey: keys.workspaces });
      select.mutate(workspace.id);
    },
  });

  return (
    <div className="picker">
      <header className="picker-header">
        <span className="brand">Support Desk</span>
        {me.data ? <span>{me.data.email}</span> : null}
        <button type="button" className="ghost" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" className="picker-main">
        <h1>Your workspaces</h1>
        <StatusMessage tone="notice">{notice}</StatusMessage>
        {me.data && !me.data.emailVerified ? (
          <section className="callout" aria-labelledby="verify-heading">
            <h2 id="verify-heading">Verify your email</h2>
            <p>
              We sent a link to {me.data.email}. Until you verify, you can own one workspace and cannot invite
              anyone.
            </p>
            {resend.isSuccess ? <StatusMessage>{resend.data.message}</StatusMessage> : null}
            <ErrorMessage error={resend.error} />
            <button type="button" onClick={() => resend.mutate()} disabled={resend.isPending}>
              Resend verification email
            </button>
          </section>
        ) : null}

        <ErrorMessage error={workspaces.error ?? select.error} />
        {workspaces.isPending ? <p role="status">Loading workspaces…</p> : null}
        {workspaces.data && workspaces.data.workspaces.length === 0 ? <p>You are not in any workspace yet. Create one below, or open an invitation link.</p> : null}
        {workspaces.data && workspaces.data.workspaces.length > 0 ? (
          <ul className="workspace-list">
            {workspaces.data.workspaces.map((w) => (
              <li key={w.id}>
                <div>
                  <strong>{w.name}</strong> <span className="muted">{w.slug}</span> · {roleLabel(w.role)}
                </div>
                <button
                  type="button"
                  onClick={() => select.mutate(w.id)}
                  disabled={select.isPending}
                  aria-label={`Open ${w.name}`}
                >
                  Open
                </button>
              </li>
            ))}
          </ul>
        ) : null}

        <section aria-labelledby="create-heading" className="panel">
          <h2 id="create-heading">Create a workspace</h2>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const form = new FormData(event.currentTarget);
              create.mutate({ name: formText(form, "name") ?? "", slug: formText(form, "slug") });
            }}
          >
            <TextField label="Workspace name" name="name" required errors={fieldErrors(create.error, "name")} />
            <TextField
              label="Slug"
              name="slug"
              pattern={"[a-z0-9\\-]{3,48}"}
              hint="Optional. Lower-case letters, digits and dashes, 3 to 48; made from the name when empty."
              errors={fieldErrors(create.error, "slug")}
            />
            <ErrorMessage error={create.error} />
            <SubmitButton pending={create.isPending || select.isPending} pendingText="Creating…">
              Create workspace
            </SubmitButton>
          </form>
        </section>
      </main>
    </div>
  );
}
