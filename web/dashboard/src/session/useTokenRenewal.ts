"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { unwrap } from "@/api/client";
import { ApiError, accessEnded } from "@/api/errors";
import { useApi } from "@/app/providers";
import { endWorkspaceAccess } from "./endAccess";
import { renewWorkspaceToken } from "./store";
import { useRenewal, worthRetrying } from "./useRenewal";

/**
 * Keeps the workspace token fresh: five minutes before it expires, asks for a new one with the
 * user token (POST /workspaces/{id}/select). A 401 is handled by the API client (back to
 * sign-in); a refusal that ends the membership takes the person out of the workspace; other
 * failures are retried.
 */
export function useTokenRenewal(workspaceId: string, expiresAt: string): void {
  const api = useApi();
  const queryClient = useQueryClient();
  const renew = useCallback(
    async (cancelled: () => boolean) => {
      try {
        const answer = await unwrap(api.user.POST("/workspaces/{id}/select", { params: { path: { id: workspaceId } } }));
        if (!cancelled()) renewWorkspaceToken(workspaceId, answer.token, answer.expiresAt);
        return false;
      } catch (error) {
        if (cancelled()) return false;
        if (error instanceof ApiError && accessEnded(error)) {
          endWorkspaceAccess(queryClient, workspaceId, error.detail);
          return false;
        }
        return worthRetrying(error instanceof ApiError ? error.status : null);
      }
    },
    [api, queryClient, workspaceId],
  );
  useRenewal(expiresAt, renew);
}
