"use client";

import { useSyncExternalStore } from "react";
import { EMPTY_SESSION, getSession, type Session, subscribe } from "./store";

const noop = () => () => {};

/** The session, and whether it has been read yet (false while the server-rendered HTML hydrates). */
export function useSession(): { session: Session; ready: boolean } {
  const session = useSyncExternalStore(subscribe, getSession, () => EMPTY_SESSION);
  const ready = useSyncExternalStore(noop, () => true, () => false);
  return { session, ready };
}
