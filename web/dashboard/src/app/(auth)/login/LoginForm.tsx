"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { unwrap } from "@/api/client";
import { ErrorMessage, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { rememberedWorkspace, startingWorkspace } from "@/session/lastWorkspace";
import { pendingInvitation } from "@/session/pendingInvitation";
import { signIn } from "@/session/store";
import { useSelectWorkspace } from "@/session/useSelectWorkspace";
import { useSession } from "@/session/useSession";

// After signing in: an invitation being accepted comes first; then the only workspace, or the
// one this browser used last, opens straight on its inbox; otherwise the workspace picker.

export function LoginForm() {
  const api = useApi();
  const router = useRouter();
  const { session, ready } = useSession();
  // Why the last session ended, if it did; replaced on signing in.
  const notice = session.notice;
  const signedIn = !!session.userToken;
  // Set while this form leads the way after its own sign-in (below), which the effect leaves be.
  const leading = useRef(false);
  useEffect(() => {
    if (ready && signedIn && !leading.current) router.replace(pendingInvitation() ? "/join" : "/workspaces");
  }, [ready, signedIn, router]);
  const select = useSelectWorkspace();

  const login = useMutation({
    mutationFn: async (body: { email: string; password: string }) => {
      const { token } = await unwrap(api.anon.POST("/auth/login", { body }));
      leading.current = true;
      signIn(token);
      if (pendingInvitation()) return null;
      // Failing to list the workspaces only costs the shortcut: the picker lists them again.
      const list = await unwrap(api.user.GET("/workspaces")).catch(() => null);
      return list ? startingWorkspace(list.workspaces, rememberedWorkspace()) : null;
    },
    onSuccess: (workspaceId) => {
      if (pendingInvitation()) router.push("/join");
      else if (workspaceId) select.mutate(workspaceId, { onError: () => router.push("/workspaces") });
      else router.push("/workspaces");
    },
  });
  return (
    <>
      <h1>Sign in</h1>
      <StatusMessage tone="notice">{notice}</StatusMessage>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          login.mutate({ email: formText(form, "email") ?? "", password: String(form.get("password") ?? "") });
        }}
      >
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        <ErrorMessage error={login.error} />
        <SubmitButton pending={login.isPending || select.isPending} pendingText="Signing in…">
          Sign in
        </SubmitButton>
      </form>
      <p>
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        New to Support Desk? <Link href="/register">Create an account</Link>
      </p>
    </>
  );
}
