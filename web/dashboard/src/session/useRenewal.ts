"use client";

import { useEffect } from "react";
import { RENEW_RETRY_MS, renewalDelay } from "./renewal";

/**
 * Asks for a fresh token: true when the attempt failed for a reason that may pass (the network,
 * a 5xx, a 429), to be tried again after {@link RENEW_RETRY_MS}. `cancelled()` turns true once
 * the token it renews is replaced or the page leaves.
 */
export type Renew = (cancelled: () => boolean) => Promise<boolean>;

/**
 * Runs `renew` five minutes before `expiresAt` (nothing while it is null). A tab that was hidden
 * or asleep past the due time (timers are throttled or paused there) renews as soon as it is
 * visible or back online, before its next call. `renew` should keep its identity between
 * renders (useCallback): a new one starts the schedule again.
 */
export function useRenewal(expiresAt: string | null, renew: Renew): void {
  useEffect(() => {
    if (!expiresAt) return;
    let timer: ReturnType<typeof setTimeout>;
    let cancelled = false;
    let renewing = false;
    const run = async () => {
      renewing = true;
      try {
        const again = await renew(() => cancelled);
        if (again && !cancelled) timer = setTimeout(() => void run(), RENEW_RETRY_MS);
      } finally {
        renewing = false;
      }
    };
    const runIfDue = () => {
      if (renewing || document.visibilityState !== "visible" || renewalDelay(expiresAt, Date.now()) > 0) return;
      clearTimeout(timer);
      void run();
    };
    timer = setTimeout(() => void run(), renewalDelay(expiresAt, Date.now()));
    document.addEventListener("visibilitychange", runIfDue);
    window.addEventListener("online", runIfDue);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", runIfDue);
      window.removeEventListener("online", runIfDue);
    };
  }, [expiresAt, renew]);
}

/** Whether a failed renewal may pass by itself: not a refusal (4xx) other than a 429. */
export function worthRetrying(status: number | null): boolean {
  return status === null || status === 429 || status < 400 || status >= 500;
}
