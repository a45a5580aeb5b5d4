"use client";

// The invitation link (APP_URL/join?token=...). Signed in: accept with the user token. Signed
// out: create the account with a name and password (the API marks its email verified, since
// the link came to it), or sign in first and come back here.

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import type { Membership } from "@/api/types";
import { roleLabel } from "@/api/types";
import { ErrorMessage, fieldErrors, formText, NewPasswordField, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { ApiError } from "@/api/errors";
import { forgetInvitation, keepInvitation, pendingInvitation } from "@/session/pendingInvitation";
import { scrubTokenFromUrl } from "@/session/scrubUrl";
import { signIn, signOut } from "@/session/store";
import { useSelectWorkspace } from "@/session/useSelectWorkspace";
import { useSession } from "@/session/useSession";

export function Join({ linkToken }: { linkToken: string }) {
  const api = useApi();
  const { session, ready } = useSession();
  const select = useSelectWorkspace();
  // From the link, or kept from it while the person signed in (read once the page is live).
  const token = linkToken || (ready ? (pendingInvitation() ?? "") : "");
  useEffect(() => {
    // Kept for this tab in case the person signs in first; then out of the address bar.
    if (linkToken) keepInvitation(linkToken);
    scrubTokenFromUrl();
  }, [linkToken]);

  const joined = (workspace: Membership) => {
    forgetInvitation();
    select.mutate(workspace.id);
  };
  // A link that can never work is forgotten, so later sign-ins do not come back here.
  const forgetDeadLink = (error: Error) => {
    if (error instanceof ApiError && error.code === "invalid_token") forgetInvitation();
  };
  const accept = useMutation({
    mutationFn: () => unwrap(api.user.POST("/invitations/accept", { body: { token } })),
    onSuccess: ({ workspace }) => joined(workspace),
    onError: forgetDeadLink,
  });
  const create = useMutation({
    mutationFn: (body: { fullName: string; password: string }) =>
      unwrap(api.anon.POST("/invitations/accept", { body: { token, ...body } })),
    onSuccess: (answer) => {
      // 201 with the new account's token (the type also covers the signed-in 200 answer).
      if ("token" in answer) signIn(answer.token);
      joined(answer.workspace);
    },
    onError: forgetDeadLink,
  });
  // What the link is for: the workspace, who invited, the address and the role.
  const preview = useQuery({
    queryKey: ["invitation-preview", token],
    queryFn: () => unwrap(api.anon.POST("/invitations/preview", { body: { token } })),
    enabled: ready && token !== "",
    retry: false,
    staleTime: Infinity,
  });
  const working = accept.isPending || create.isPending || select.isPending;
  const workspace = accept.data?.workspace ?? create.data?.workspace;

  if (!ready) return <p role="status">Loading…</p>;
  if (!token) {
    return (
      <>
        <h1>Join a workspace</h1>
        <p role="alert">This link has no invitation token. Open the link from the invitation email again.</p>
      </>
    );
  }
  if (workspace) {
    return (
      <>
        <h1>Welcome to {workspace.name}</h1>
        <p role="status">
          You joined as {roleLabel(workspace.role)}. {select.isPending ? "Opening the inbox…" : null}
        </p>
        <ErrorMessage error={select.error} />
      </>
    );
  }
  if (preview.isError) {
    return (
      <>
        <h1>This invitation does not work any more</h1>
        <ErrorMessage error={preview.error} />
        <p>Invitations last seven days and work once. Ask the person who invited you for a new one.</p>
      </>
    );
  }
  const invitation = preview.data;
  const heading = invitation ? `Join ${invitation.workspaceName}` : "Join a workspace";
  const invitedLine = invitation ? (
    <p>
      {invitation.invitedBy ?? "An Owner"} invited you ({invitation.email}) to join <strong>{invitation.workspaceName}</strong> as{" "}
      {roleLabel(invitation.role)}.
    </p>
  ) : (
    <p role="status">Loading the invitation…</p>
  );
  if (session.userToken) {
    return (
      <>
        <h1>{heading}</h1>
        {invitedLine}
        <p>Accept to join with the account you are signed in with.</p>
        <ErrorMessage error={accept.error} />
        <button type="button" onClick={() => accept.mutate()} disabled={working}>
          Accept invitation
        </button>{" "}
        <button type="button" className="ghost" onClick={() => signOut()}>
          Use another account
        </button>
      </>
    );
  }
  return (
    <>
      <h1>{heading}</h1>
      {invitedLine}
      <p>Create your account to join. The invitation was sent to your email address, so it is already verified.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          create.mutate({ fullName: formText(form, "fullName") ?? "", password: String(form.get("password") ?? "") });
        }}
      >
        <TextField label="Full name" name="fullName" autoComplete="name" required errors={fieldErrors(create.error, "fullName")} />
        <NewPasswordField errors={fieldErrors(create.error, "password")} />
        <ErrorMessage error={create.error} />
        <SubmitButton pending={working} pendingText="Joining…">
          Join workspace
        </SubmitButton>
      </form>
      <p>
        Already have an account? <Link href="/login">Sign in</Link> and you will come back here to accept.
      </p>
    </>
  );
}
