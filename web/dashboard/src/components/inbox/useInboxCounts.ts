"use client";

// The Mine / Unassigned / All tab counts (open and pending), asked again shortly after hub
// events change the inbox (useRefreshOnInboxChange).

import { useQuery } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { useApi } from "@/app/providers";
import { inboxKeys } from "@/lib/inboxKeys";
import { useRefreshOnInboxChange } from "./useRefreshOnInboxChange";

export function useInboxCounts(workspaceId: string) {
  const api = useApi();
  useRefreshOnInboxChange(workspaceId, inboxKeys.counts(workspaceId));
  return useQuery({
    queryKey: inboxKeys.counts(workspaceId),
    queryFn: () => unwrap(api.workspace.GET("/api/conversations/counts")),
  });
}
