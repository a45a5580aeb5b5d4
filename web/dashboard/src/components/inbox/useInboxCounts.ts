"use client";

// The Mine / Unassigned / All tab counts (open and pending), asked again shortly after hub
// events change any conversation list or record this tab holds: a status change or an
// assignment moves a conversation between counts.

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { useApi } from "@/app/providers";
import { inboxKeys } from "@/lib/inboxKeys";

const REFRESH_DELAY_MS = 500;

export function useInboxCounts(workspaceId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  useEffect(() => {
    const lists = keys.conversations(workspaceId);
    const records = keys.conversationRecords(workspaceId);
    const under = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, i) => key[i] === part);
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== "updated" || event.action.type !== "success") return;
      const key = event.query.queryKey;
      if (!under(key, lists) && !under(key, records)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void queryClient.invalidateQueries({ queryKey: inboxKeys.counts(workspaceId) }), REFRESH_DELAY_MS);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [queryClient, workspaceId]);
  return useQuery({
    queryKey: inboxKeys.counts(workspaceId),
    queryFn: () => unwrap(api.workspace.GET("/api/conversations/counts")),
  });
}
