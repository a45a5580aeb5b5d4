"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useSession } from "@/session/useSession";

/** Where to start: the inbox, the workspace picker, or sign-in. */
export default function Home() {
  const { session, ready } = useSession();
  const router = useRouter();
  useEffect(() => {
    if (!ready) return;
    router.replace(session.workspace ? "/inbox" : session.userToken ? "/workspaces" : "/login");
  }, [ready, session, router]);
  return (
    <p className="page-loading" role="status">
      Loading…
    </p>
  );
}
