"use client";

// The open conversation is read: on opening, and whenever a new incoming message arrives while
// the browser tab is visible (POST /api/conversations/{id}/read). The inbox rows show no unread
// left for it straight away.

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { keys } from "@/api/keys";
import { useApi } from "@/app/providers";
import { type ConversationPages, markListRead } from "@/realtime/reducers";

function useTabVisible(): boolean {
  const [visible, setVisible] = useState(() => typeof document === "undefined" || document.visibilityState === "visible");
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  return visible;
}

export function useReadMarks(workspaceId: string, conversationId: string, lastIncomingId: string | null) {
  const api = useApi();
  const queryClient = useQueryClient();
  const visible = useTabVisible();
  useEffect(() => {
    if (!visible) return;
    queryClient.setQueriesData<ConversationPages>({ queryKey: keys.conversations(workspaceId) }, (data) => markListRead(data, conversationId));
    // Best effort: a read mark that fails leaves the conversation unread, which the next
    // message or opening marks again; nothing for the agent to do about it.
    void api.workspace.POST("/api/conversations/{id}/read", { params: { path: { id: conversationId } } }).catch(() => undefined);
  }, [api, queryClient, workspaceId, conversationId, lastIncomingId, visible]);
}
