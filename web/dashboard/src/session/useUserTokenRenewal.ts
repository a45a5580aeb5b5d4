"use client";

import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { ApiError } from "@/api/errors";
import { useApi } from "@/app/providers";
import { RENEW_RETRY_MS, renewalDelay, tokenExpiry } from "./renewal";
import { renewUserToken } from "./store";

/**
 * Keeps the user token fresh while someone is signed in: five minutes before it expires, asks
 * for a new one (POST /auth/refresh). Without it the workspace token's renewal, which takes the
 * user token, would fail an hour after sign-in at most and sign the person out mid-shift. A 401
 * (revoked by a password reset, or expired while the machine slept) is handled by the API
 * client (back to sign-in); other failures are retried. Like the workspace token's renewal, a
 * tab hidden or asleep past the due time renews as soon as it is visible or back online.
 */
export function useUserTokenRenewal(userToken: string | null): void {
  const api = useApi();
  useEffect(() => {
    if (!userToken) return;
    const expiresAt = tokenExpiry(userToken);
    if (!expiresAt) return;
    let timer: ReturnType<typeof setTimeout>;
    let cancelled = false;
    let renewing = false;
    const renew = async () => {
      renewing = true;
      try {
        const answer = await unwrap(api.user.POST("/auth/refresh"));
        if (!cancelled) renewUserToken(answer.token);
      } catch (error) {
        if (cancelled) return;
        if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429) return;
        timer = setTimeout(() => void renew(), RENEW_RETRY_MS);
      } finally {
        renewing = false;
      }
    };
    const renewIfDue = () => {
      if (renewing || document.visibilityState !== "visible" || renewalDelay(expiresAt, Date.now()) > 0) return;
      clearTimeout(timer);
      void renew();
    };
    timer = setTimeout(() => void renew(), renewalDelay(expiresAt, Date.now()));
    document.addEventListener("visibilitychange", renewIfDue);
    window.addEventListener("online", renewIfDue);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", renewIfDue);
      window.removeEventListener("online", renewIfDue);
    };
  }, [api, userToken]);
}
