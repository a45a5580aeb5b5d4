"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { ErrorMessage, fieldErrors, NewPasswordField, StatusMessage, SubmitButton } from "@/components/ui";
import { useApi } from "@/app/providers";
import { scrubTokenFromUrl } from "@/session/scrubUrl";
import { signOut } from "@/session/store";

export function ResetPassword({ token }: { token: string }) {
  const api = useApi();
  useEffect(scrubTokenFromUrl, []);
  const reset = useMutation({
    mutationFn: (password: string) => unwrap(api.anon.POST("/auth/reset-password", { body: { token, password } })),
    // Every token issued before the reset is refused from now on.
    onSuccess: () => signOut(),
  });
  if (reset.isSuccess) {
    return (
      <>
        <h1>Password changed</h1>
        <StatusMessage>{reset.data.message}</StatusMessage>
        <p>
          <Link href="/login">Sign in</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Choose a new password</h1>
      {!token ? <p role="alert">This link has no reset token. Open the link from the email again.</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          reset.mutate(String(new FormData(event.currentTarget).get("password") ?? ""));
        }}
      >
        <NewPasswordField label="New password" errors={fieldErrors(reset.error, "password")} />
        <ErrorMessage error={reset.error} />
        <SubmitButton pending={reset.isPending} disabled={!token} pendingText="Saving…">
          Set new password
        </SubmitButton>
      </form>
    </>
  );
}
