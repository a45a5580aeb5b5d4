"use client";

// One hub connection per selected workspace. Events are folded into the query cache by the
// pure reducers (./reducers); conversations a list does not hold yet make that list refetch.
// After a reconnect every workspace query is refetched, since events may have been missed.

import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { keys } from "@/api/keys";
import type { AgentList, Conversation } from "@/api/types";
import { useConfig } from "@/app/providers";
import { endSession, endWorkspaceAccess } from "@/session/endAccess";
import type { MessageCreated } from "./events";
import { type AgentHub, connectAgentHub, type HubState } from "./hub";
import {
  appendMessage,
  applyPresence,
  applyPreview,
  applyTyping,
  type ConversationPages,
  holdsConversation,
  type InboxFilter,
  markRead,
  markUnread,
  type MessagePages,
  type PreviewState,
  replaceConversation,
  touchConversation,
  typingEndedByMessage,
  type TypingState,
  type UnreadState,
  upsertConversation,
} from "./reducers";

interface HubContextValue {
  state: HubState;
  /** Invokes a hub method; resolves false when not connected or the call failed. */
  send(method: "JoinConversation" | "LeaveConversation" | "Typing", ...args: unknown[]): Promise<boolean>;
  /** The conversation on screen: its messages are read as they arrive. */
  setOpenConversation(id: string | null): void;
}

const HubContext = createContext<HubContextValue | null>(null);

export function useHub(): HubContextValue {
  const value = useContext(HubContext);
  if (!value) throw new Error("HubProvider missing");
  return value;
}

function inboxFilterOf(key: readonly unknown[]): InboxFilter | null {
  const filter = key[3];
  return filter && typeof filter === "object" ? (filter as InboxFilter) : null;
}

function foldConversation(queryClient: QueryClient, ws: string, meId: string | null, conversation: Conversation): void {
  queryClient.setQueryData<Conversation>(keys.conversation(ws, conversation.id), (current) =>
    current ? replaceConversation(current, conversation) : current,
  );
  for (const [key, data] of queryClient.getQueriesData<ConversationPages>({ queryKey: keys.conversations(ws) })) {
    const filter = inboxFilterOf(key);
    if (filter) queryClient.setQueryData(key, upsertConversation(data, conversation, filter, meId));
  }
}

function foldMessage(queryClient: QueryClient, ws: string, event: MessageCreated, open: string | null): void {
  queryClient.setQueryData<MessagePages>(keys.messages(ws, event.conversationId), (data) => appendMessage(data, event));
  queryClient.setQueryData<TypingState>(keys.typing(ws), (s) => typingEndedByMessage(s ?? {}, event));
  queryClient.setQueryData<UnreadState>(keys.unread(ws), (s) => markUnread(s ?? {}, event, open));
  queryClient.setQueryData<PreviewState>(keys.previews(ws), (s) => applyPreview(s ?? {}, event));
  for (const [key, data] of queryClient.getQueriesData<ConversationPages>({ queryKey: keys.conversations(ws) })) {
    if (holdsConversation(data, event.conversationId)) {
      queryClient.setQueryData(key, touchConversation(data, event.conversationId, event.message.createdAt));
    } else {
      // A conversation this list has not seen (an older one that woke up): ask again.
      void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
  }
}

export function HubProvider({
  workspaceId,
  token,
  meId,
  children,
}: {
  workspaceId: string;
  token: string;
  meId: string | null;
  children: ReactNode;
}) {
  const { hubUrl } = useConfig();
  const queryClient = useQueryClient();
  const [state, setState] = useState<HubState>("connecting");
  const hubRef = useRef<AgentHub | null>(null);
  const openRef = useRef<string | null>(null);
  const meRef = useRef(meId);
  useEffect(() => {
    meRef.current = meId;
  }, [meId]);

  // The negotiate headers: one object for the connection's lifetime, rewritten on renewal.
  const headersRef = useRef<Record<string, string>>({ Authorization: `Bearer ${token}` });
  useEffect(() => {
    headersRef.current.Authorization = `Bearer ${token}`;
  }, [token]);

  useEffect(() => {
    const ws = workspaceId;
    const hub = connectAgentHub(hubUrl, headersRef.current, {
      messageCreated: (event) => foldMessage(queryClient, ws, event, openRef.current),
      conversationCreated: (conversation) => foldConversation(queryClient, ws, meRef.current, conversation),
      conversationUpdated: (conversation) => foldConversation(queryClient, ws, meRef.current, conversation),
      typing: (event) => queryClient.setQueryData<TypingState>(keys.typing(ws), (s) => applyTyping(s ?? {}, event, Date.now())),
      presenceChanged: (event) => {
        for (const [key, data] of queryClient.getQueriesData<AgentList>({ queryKey: keys.allAgents(ws) })) {
          if (data && !data.agents.some((a) => a.id === event.agentId)) {
            // Someone this list has not seen yet (they just joined): ask again.
            void queryClient.invalidateQueries({ queryKey: key, exact: true });
          } else {
            queryClient.setQueryData(key, applyPresence(data, event));
          }
        }
      },
      state: setState,
      resynced: () =>
        void queryClient.invalidateQueries({ queryKey: keys.workspace(ws), predicate: (q) => q.queryKey[2] !== "live" }),
      ended: (reason, status) => {
        if (status === 401) endSession();
        else endWorkspaceAccess(queryClient, ws, reason);
      },
    });
    hubRef.current = hub;
    return () => {
      hubRef.current = null;
      void hub.stop();
    };
  }, [workspaceId, hubUrl, queryClient]);

  const send = useCallback(async (method: string, ...args: unknown[]) => {
    const hub = hubRef.current;
    if (!hub || hub.connection.state !== "Connected") return false;
    try {
      await hub.connection.invoke(method, ...args);
      return true;
    } catch {
      return false;
    }
  }, []);

  const setOpenConversation = useCallback(
    (id: string | null) => {
      openRef.current = id;
      if (id) queryClient.setQueryData<UnreadState>(keys.unread(workspaceId), (s) => markRead(s ?? {}, id));
    },
    [queryClient, workspaceId],
  );

  const value = useMemo(() => ({ state, send, setOpenConversation }), [state, send, setOpenConversation]);
  return <HubContext.Provider value={value}>{children}</HubContext.Provider>;
}
