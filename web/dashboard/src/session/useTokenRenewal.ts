"use client";

import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { ApiError, accessEnded } from "@/api/errors";
import { useApi } from "@/app/providers";
import { useQueryClient } from "@tanstack/react-query";
import { endWorkspaceAccess } from "./endAccess";
import { RENEW_RETRY_MS, renewalDelay } from "./renewal";
import { renewWorkspaceToken } from "./store";

/**
 * Keeps the workspace token fresh: five minutes before it expires, asks for a new one with the
 * user token (POST /workspaces/{id}/select). A 401 is handled by the API client (back to
 * sign-in); a refusal that ends the membership takes the person out of the workspace; other
 * failures are retried. A tab that was hidden or asleep past the due time (timers are throttled
 * or paused there) renews as soon as it is visible or back online, before its next call.
 */
export function useTokenRenewal(workspaceId: string, expiresAt: string): void {
  const api = useApi();
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    let cancelled = false;
    let renewing = false;
    const renew = async () => {
      renewing = true;
      try {
        const answer = await unwrap(api.user.POST("/workspaces/{id}/select", { params: { path: { id: workspaceId } } }));
        if (!cancelled) renewWorkspaceToken(workspaceId, answer.token, answer.expiresAt);
      } catch (error) {
        if (cancelled) return;
        if (error instanceof ApiError && accessEnded(error)) {
          endWorkspaceAccess(queryClient, workspaceId, error.detail);
          return;
        }
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
  }, [api, queryClient, workspaceId, expiresAt]);
}
