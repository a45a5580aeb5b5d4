"use client";

import { useCallback } from "react";
import { unwrap } from "@/api/client";
import { ApiError } from "@/api/errors";
import { useApi } from "@/app/providers";
import { tokenExpiry } from "./renewal";
import { renewUserToken } from "./store";
import { useRenewal, worthRetrying } from "./useRenewal";

/**
 * Keeps the user token fresh while someone is signed in: five minutes before it expires, asks
 * for a new one (POST /auth/refresh). Without it the workspace token's renewal, which takes the
 * user token, would fail an hour after sign-in at most and sign the person out mid-shift. A 401
 * (revoked by a password reset, or expired while the machine slept) is handled by the API
 * client (back to sign-in); other failures are retried.
 */
export function useUserTokenRenewal(userToken: string | null): void {
  const api = useApi();
  const renew = useCallback(
    async (cancelled: () => boolean) => {
      try {
        const answer = await unwrap(api.user.POST("/auth/refresh"));
        if (!cancelled()) renewUserToken(answer.token);
        return false;
      } catch (error) {
        return !cancelled() && worthRetrying(error instanceof ApiError ? error.status : null);
      }
    },
    [api],
  );
  useRenewal(userToken ? tokenExpiry(userToken) : null, renew);
}
