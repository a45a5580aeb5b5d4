"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect } from "react";
import { useSession } from "@/session/useSession";

/** Renders its children for a signed-in person; sends anyone else to /login. */
export function RequireUser({ children }: { children: ReactNode }) {
  const { session, ready } = useSession();
  const router = useRouter();
  const signedIn = !!session.userToken;
  useEffect(() => {
    if (ready && !signedIn) router.replace("/login");
  }, [ready, signedIn, router]);
  if (!ready || !signedIn) {
    return (
      <p className="page-loading" role="status">
        Loading…
      </p>
    );
  }
  return children;
}
