"use client";

// Counts the server keeps (the tabs' badges, the saved views') are asked again shortly after
// hub events change any conversation list or record this tab holds: a status change, an
// assignment or a new message moves conversations between them. One refetch per burst.

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { keys } from "@/api/keys";

const REFRESH_DELAY_MS = 500;

export function useRefreshOnInboxChange(workspaceId: string, queryKey: readonly unknown[]) {
  const queryClient = useQueryClient();
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    const target = JSON.parse(keyText) as unknown[];
    const lists = keys.conversations(workspaceId);
    const records = keys.conversationRecords(workspaceId);
    const under = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, i) => key[i] === part);
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== "updated" || event.action.type !== "success") return;
      const key = event.query.queryKey;
      if (!under(key, lists) && !under(key, records)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void queryClient.invalidateQueries({ queryKey: target }), REFRESH_DELAY_MS);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [queryClient, workspaceId, keyText]);
}
