"use client";

// The saved views (shared ones first, then the agent's own) with their live counts: read once,
// then again shortly after hub events change the inbox.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { InboxFilters } from "@/api/types";
import type { Placed } from "@/lib/viewOrder";
import { useApi } from "@/app/providers";
import { useRefreshOnInboxChange } from "@/components/inbox/useRefreshOnInboxChange";

export function useViews(workspaceId: string) {
  const api = useApi();
  useRefreshOnInboxChange(workspaceId, keys.views(workspaceId));
  return useQuery({
    queryKey: keys.views(workspaceId),
    queryFn: () => unwrap(api.workspace.GET("/api/views")),
  });
}

export function useSaveView(workspaceId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; shared: boolean; filters: InboxFilters }) => unwrap(api.workspace.POST("/api/views", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.views(workspaceId) }),
  });
}

export function useDeleteView(workspaceId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/views/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.views(workspaceId) }),
  });
}

/** Sends a move's position changes (lib/viewOrder), one after the other, then reads the list again. */
export function useMoveView(workspaceId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Placed[]) => {
      for (const { id, position } of changes) {
        await unwrap(api.workspace.PATCH("/api/views/{id}", { params: { path: { id } }, body: { position } }));
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.views(workspaceId) }),
  });
}
