"use client";

// One hub connection per selected workspace. Events are folded into the query cache by the
// pure reducers (./reducers, applied by ./cache); conversations a list does not hold yet make
// that list refetch. Logged changes go through the sequence tracker (./sequence): in seq
// order, once each, and what the tab missed (a gap, a dropped connection) is read from the
// event log (GET /api/events) and folded exactly as the live events would have been
// (./eventLog). Only a tab without a cursor yet, or one the log has forgotten (410), reloads
// every query.

import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { fetchEventPage } from "@/api/events";
import { useApi, useConfig } from "@/app/providers";
import { endSession, endWorkspaceAccess } from "@/session/endAccess";
import { applyLoggedHubEvent, type FoldContext, foldPresence, foldTyping, reloadWorkspace } from "./cache";
import { fromHub, fromLog, type Sequenced } from "./eventLog";
import type { LoggedHubEvent } from "./events";
import { type AgentHub, connectAgentHub, type HubState } from "./hub";
import { SequenceTracker } from "./sequence";

interface HubContextValue {
  state: HubState;
  /** Invokes a hub method; resolves false when not connected or the call failed. */
  send(method: "JoinConversation" | "LeaveConversation" | "Typing", ...args: unknown[]): Promise<boolean>;
  /** The conversation on screen: its messages are read as they arrive. */
  setOpenConversation(id: string | null): void;
  /**
   * Calls `listener` with each logged change as it arrives live over the hub (not what is read
   * back from the event log after a gap: that is history, not news). Returns the unsubscribe.
   */
  onLiveEvent(listener: (event: LoggedHubEvent) => void): () => void;
}

const HubContext = createContext<HubContextValue | null>(null);

export function useHub(): HubContextValue {
  const value = useContext(HubContext);
  if (!value) throw new Error("HubProvider missing");
  return value;
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
  const api = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<HubState>("connecting");
  const hubRef = useRef<AgentHub | null>(null);
  const openRef = useRef<string | null>(null);
  const liveListeners = useRef(new Set<(event: LoggedHubEvent) => void>());
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
    const context = (): FoldContext => ({ ws, meId: meRef.current, openConversationId: openRef.current });
    const tracker = new SequenceTracker<Sequenced>({
      fetchPage: async (after, limit) => {
        const page = await fetchEventPage(api, after, limit);
        return { ...page, events: page.events.map(fromLog) };
      },
      apply: ({ event }) => {
        if (event) applyLoggedHubEvent(queryClient, context(), event);
      },
      reload: () => void reloadWorkspace(queryClient, ws),
      failed: (error) => console.warn("The event log could not be read; reloading instead.", error),
    });
    const hub = connectAgentHub(hubUrl, headersRef.current, {
      logged: (event) => {
        for (const listener of liveListeners.current) listener(event);
        const sequenced = fromHub(event);
        // Without a seq (a server without the log): folded as it comes.
        if (sequenced) tracker.receive(sequenced);
        else applyLoggedHubEvent(queryClient, context(), event);
      },
      typing: (event) => foldTyping(queryClient, context(), event, Date.now()),
      presenceChanged: (event) => foldPresence(queryClient, context(), event),
      state: setState,
      connected: () => void tracker.connected(),
      ended: (reason, status) => {
        tracker.stop();
        if (status === 401) endSession();
        else endWorkspaceAccess(queryClient, ws, reason);
      },
    });
    hubRef.current = hub;
    return () => {
      hubRef.current = null;
      tracker.stop();
      void hub.stop();
    };
  }, [workspaceId, hubUrl, queryClient, api]);

  const send = useCallback(async (method: string, ...args: unknown[]) => {
    const hub = hubRef.current;
    if (!hub || !hub.isConnected()) return false;
    try {
      await hub.connection.invoke(method, ...args);
      return true;
    } catch {
      return false;
    }
  }, []);

  const setOpenConversation = useCallback((id: string | null) => {
    openRef.current = id;
  }, []);

  const onLiveEvent = useCallback((listener: (event: LoggedHubEvent) => void) => {
    const listeners = liveListeners.current;
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);

  const value = useMemo(() => ({ state, send, setOpenConversation, onLiveEvent }), [state, send, setOpenConversation, onLiveEvent]);
  return <HubContext.Provider value={value}>{children}</HubContext.Provider>;
}
