"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ErrorMessage } from "@/components/ui";
import { useApi } from "@/app/providers";
import { scrubTokenFromUrl } from "@/session/scrubUrl";
import { useSession } from "@/session/useSession";

export function VerifyEmail({ token }: { token: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { session } = useSession();
  useEffect(scrubTokenFromUrl, []);
  // A query, not an effect: the token is single use, and the query runs once per token even
  // when React mounts the component twice.
  const verify = useQuery({
    queryKey: ["verify-email", token],
    queryFn: async () => {
      const answer = await unwrap(api.anon.GET("/auth/verify-email", { params: { query: { token } } }));
      void queryClient.invalidateQueries({ queryKey: keys.me });
      return answer;
    },
    enabled: token !== "",
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  const next = session.userToken ? (
    <Link href="/workspaces">Continue to your workspaces</Link>
  ) : (
    <Link href="/login">Sign in</Link>
  );
  if (!token) {
    return (
      <>
        <h1>Verify your email</h1>
        <p role="alert">This link has no verification token. Open the link from the email again.</p>
        <p>{next}</p>
      </>
    );
  }
  if (verify.isPending) {
    return (
      <>
        <h1>Verify your email</h1>
        <p role="status">Verifying…</p>
      </>
    );
  }
  if (verify.isError) {
    return (
      <>
        <h1>This link does not work any more</h1>
        <ErrorMessage error={verify.error} />
        <p>Verification links work for 24 hours, and only for the address they were sent to. Sign in to ask for a new one.</p>
        <p>{next}</p>
      </>
    );
  }
  return (
    <>
      <h1>{verify.data.status === "already_verified" ? "Already verified" : "Email verified"}</h1>
      <p role="status">{verify.data.message}</p>
      <p>{next}</p>
    </>
  );
}
