"use client";

import { useSession } from "./useSession";
import { useUserTokenRenewal } from "./useUserTokenRenewal";

/** Renews the user token while someone is signed in, on every page (the picker included). */
export function KeepSignedIn() {
  const { session } = useSession();
  useUserTokenRenewal(session.userToken);
  return null;
}
