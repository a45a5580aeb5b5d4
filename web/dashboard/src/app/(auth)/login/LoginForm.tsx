"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { ErrorMessage, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { pendingInvitation } from "@/session/pendingInvitation";
import { signIn } from "@/session/store";
import { useSession } from "@/session/useSession";

export function LoginForm() {
  const api = useApi();
  const router = useRouter();
  const { session, ready } = useSession();
  // Why the last session ended, if it did; replaced on signing in.
  const notice = session.notice;
  const signedIn = !!session.userToken;
  useEffect(() => {
    if (ready && signedIn) router.replace(pendingInvitation() ? "/join" : "/workspaces");
  }, [ready, signedIn, router]);

  const login = useMutation({
    mutationFn: (body: { email: string; password: string }) => unwrap(api.anon.POST("/auth/login", { body })),
    onSuccess: ({ token }) => {
      signIn(token);
      router.push(pendingInvitation() ? "/join" : "/workspaces");
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
        <SubmitButton pending={login.isPending} pendingText="Signing in…">
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
