"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { unwrap } from "@/api/client";
import { ErrorMessage, fieldErrors, formText, NewPasswordField, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { signIn } from "@/session/store";


export function RegisterForm() {
  const api = useApi();
  const router = useRouter();
  const register = useMutation({
    mutationFn: (body: { email: string; password: string; fullName: string }) =>
      unwrap(api.anon.POST("/auth/register", { body })),
    onSuccess: ({ token, user }) => {
      signIn(token, `Welcome, ${user.fullName}. We sent a verification link to ${user.email}.`);
      router.push("/workspaces");
    },
  });
  return (
    <>
      <h1>Create your account</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          register.mutate({
            fullName: formText(form, "fullName") ?? "",
            email: formText(form, "email") ?? "",
            password: String(form.get("password") ?? ""),
          });
        }}
      >
        <TextField label="Full name" name="fullName" autoComplete="name" required errors={fieldErrors(register.error, "fullName")} />
        <TextField label="Email" name="email" type="email" autoComplete="email" required errors={fieldErrors(register.error, "email")} />
        <NewPasswordField errors={fieldErrors(register.error, "password")} />
        <ErrorMessage error={register.error} />
        <SubmitButton pending={register.isPending} pendingText="Creating account…">
          Create account
        </SubmitButton>
      </form>
      <p>
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </>
  );
}
