"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { unwrap } from "@/api/client";
import { ErrorMessage, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";

export default function ForgotPasswordPage() {
  const api = useApi();
  const forgot = useMutation({
    mutationFn: (email: string) => unwrap(api.anon.POST("/auth/forgot-password", { body: { email } })),
  });
  return (
    <>
      <h1>Reset your password</h1>
      {forgot.isSuccess ? (
        <StatusMessage>{forgot.data.message}</StatusMessage>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            forgot.mutate(formText(new FormData(event.currentTarget), "email") ?? "");
          }}
        >
          <TextField label="Email" name="email" type="email" autoComplete="email" required hint="We will email you a link to choose a new password." />
          <ErrorMessage error={forgot.error} />
          <SubmitButton pending={forgot.isPending} pendingText="Sending…">
            Send reset link
          </SubmitButton>
        </form>
      )}
      <p>
        <Link href="/login">Back to sign in</Link>
      </p>
    </>
  );
}
