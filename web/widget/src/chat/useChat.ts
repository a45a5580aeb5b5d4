"use client";

// Everything the chat page does outside rendering: the postMessage handshake with the loader
// (which creates sessions on the customer's page), keeping the visitor id in this origin's
// storage, token renewal, the hub connection with its reconnects, and the REST calls. State
// changes go through the pure reducer in state.ts.

import { useCallback, useEffect, useMemo, useReducer, useRef } from "react";
import {
  envelope,
  fromExpected,
  parseFromLoader,
  type FromWidget,
  type WidgetSession,
} from "@/loader/protocol";
import { ApiError, visitorApi } from "./api";
import { connectHub, type Hub } from "./hub";
import { initialState, reducer, type ChatState } from "./state";
import { renewalDelay, renewalDue, sessionErrorRetryable, sessionRetryDelay } from "./timing";
import type { MessageCreated } from "./types";
import { typingNotifier, type TypingNotifier } from "./typing";

/** At most one renewal request a minute, whatever asks for it (timer, 401s, reconnects). */
const RENEW_THROTTLE_MS = 60_000;
const TYPING_SWEEP_MS = 1000;

export const NOT_EMBEDDED = "This is the chat window of a website's Support Desk widget. Open the website to chat.";

export interface Chat {
  state: ChatState;
  send(body: string): Promise<boolean>;
  saveContact(contact: { email?: string; name?: string }): Promise<boolean>;
  typing(): void;
  close(): void;
}

/** undefined: the browser denies this (third-party) frame its storage. */
function readVisitorId(key: string): string | null | undefined {
  try {
    return localStorage.getItem(key);
  } catch {
    return undefined;
  }
}

function storeVisitorId(key: string, visitorId: string) {
  try {
    localStorage.setItem(key, visitorId);
  } catch {
    // storage blocked
  }
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Server returned an error on close: /, "");
}

export function useChat({ apiUrl, hubUrl }: { apiUrl: string; hubUrl: string }): Chat {
  const [state, dispatch] = useReducer(reducer, initialState);
  const session = useRef<WidgetSession | null>(null);
  /** The customer's page, learned from its `hello`; every later message must come from it. */
  const parentOrigin = useRef<string | null>(null);
  /** Read by the hub client on every negotiate: updated in place with each token. */
  const headers = useRef<Record<string, string>>({});
  const hub = useRef<Hub | null>(null);
  const notifier = useRef<TypingNotifier | null>(null);
  const lastRenewal = useRef(0);

  const postToParent = useCallback((message: FromWidget) => {
    if (parentOrigin.current) window.parent.postMessage(envelope(message), parentOrigin.current);
  }, []);

  const requestRenewal = useCallback(
    (force = false) => {
      const now = Date.now();
      if (!force && now - lastRenewal.current < RENEW_THROTTLE_MS) return;
      lastRenewal.current = now;
      postToParent({ type: "renew" });
    },
    [postToParent],
  );

  const api = useMemo(() => visitorApi(apiUrl), [apiUrl]);

  const fail = useCallback(
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) requestRenewal();
      dispatch({ type: "error", message: messageOf(error) });
    },
    [requestRenewal],
  );

  /** Runs a visitor's action; true when it succeeded (its error is shown otherwise). */
  const attempt = useCallback(
    async (action: () => Promise<void>) => {
      try {
        await action();
        dispatch({ type: "error", message: null });
        return true;
      } catch (error) {
        fail(error);
        return false;
      }
    },
    [fail],
  );

  useEffect(() => {
    session.current = state.session;
    if (state.session) headers.current.Authorization = `Bearer ${state.session.token}`;
  }, [state.session]);

  // The handshake: ready -> hello (learn the parent's origin) -> our stored visitor id ->
  // session (or session-error), then renewals on request.
  useEffect(() => {
    if (window.parent === window) {
      dispatch({ type: "error", message: NOT_EMBEDDED });
      return;
    }
    let storageKey: string | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent) return;
      const m = parseFromLoader(event.data);
      if (!m) return;
      if (m.type === "hello") {
        if (parentOrigin.current && parentOrigin.current !== event.origin) return;
        parentOrigin.current = event.origin;
        // Per site key and embedding origin: a visitor id is only ever handed back to the
        // site it was made for, even in browsers without third-party storage partitioning.
        storageKey = `supportdesk.visitor:${m.siteKey}:${event.origin}`;
        const stored = readVisitorId(storageKey);
        postToParent({ type: "visitor", visitorId: stored ?? null, stored: stored !== undefined });
        return;
      }
      if (!fromExpected(event, window.parent, parentOrigin.current)) return;
      clearTimeout(retry);
      if (m.type === "session") {
        if (storageKey) storeVisitorId(storageKey, m.session.visitorId);
        dispatch({ type: "session", reason: m.reason, session: m.session });
      } else {
        dispatch({ type: "error", message: m.detail });
        if (sessionErrorRetryable(m.status)) {
          retry = setTimeout(() => requestRenewal(true), sessionRetryDelay(m.retryAfter));
        }
      }
    };
    window.addEventListener("message", onMessage);
    // Nothing secret in "ready": any parent may hear it, and gets a reply only after `hello`.
    window.parent.postMessage(envelope({ type: "ready" }), "*");
    return () => {
      window.removeEventListener("message", onMessage);
      clearTimeout(retry);
    };
  }, [postToParent, requestRenewal]);

  // A fresh token a little before this one expires.
  useEffect(() => {
    if (!state.session) return;
    const timer = setTimeout(() => requestRenewal(true), renewalDelay(state.session.expiresAt, Date.now()));
    return () => clearTimeout(timer);
  }, [state.session, requestRenewal]);

  // One hub connection per visitor (generation); renewals only update `headers`.
  useEffect(() => {
    if (state.generation === 0) return;
    let live = true;
    const load = async () => {
      try {
        const conversation = await api.conversation(session.current?.token ?? "");
        if (live) dispatch({ type: "conversationLoaded", conversation });
      } catch (error) {
        if (live) fail(error);
      }
    };
    const connection = connectHub(hubUrl, headers.current, {
      messageCreated: (event) => dispatch({ type: "messageCreated", event }),
      conversationUpdated: (event) => dispatch({ type: "conversationUpdated", event }),
      typing: (event) => dispatch({ type: "typing", event, now: Date.now() }),
      connected: () => {
        dispatch({ type: "connection", status: "connected" });
        void load(); // whatever happened while we were away
      },
      reconnecting: (error) => {
        dispatch({ type: "connection", status: "reconnecting" });
        const s = session.current;
        if ((s && renewalDue(s.expiresAt, Date.now())) || /401|unauthori[sz]ed|expired/i.test(String(error))) {
          requestRenewal();
        }
      },
      closed: (error) => {
        dispatch({ type: "connection", status: "disconnected" });
        if (error) dispatch({ type: "error", message: messageOf(error) });
      },
    });
    hub.current = connection;
    void load(); // show the history before the hub is up
    return () => {
      live = false;
      hub.current = null;
      void connection.stop();
    };
  }, [state.generation, api, hubUrl, fail, requestRenewal]);

  // The visitor's own typing signal, through the hub only (REST has no typing route).
  useEffect(() => {
    const n = typingNotifier((isTyping) => {
      const h = hub.current;
      if (h?.isConnected()) h.connection.invoke("Typing", isTyping).catch(() => undefined);
    });
    notifier.current = n;
    return () => n.dispose();
  }, []);

  // Agents who stopped without saying so.
  const anyoneTyping = state.typing.length > 0;
  useEffect(() => {
    if (!anyoneTyping) return;
    const timer = setInterval(() => dispatch({ type: "typingExpired", now: Date.now() }), TYPING_SWEEP_MS);
    return () => clearInterval(timer);
  }, [anyoneTyping]);

  const send = useCallback(
    async (body: string) => {
      notifier.current?.stop();
      const h = hub.current;
      return attempt(async () => {
        // Through the hub when it is up; the REST route otherwise (same result).
        const result = h?.isConnected()
          ? await h.connection.invoke<MessageCreated>("SendMessage", body)
          : await api.send(session.current?.token ?? "", body);
        dispatch({ type: "messageCreated", event: result });
      });
    },
    [api, attempt],
  );

  const saveContact = useCallback(
    (contact: { email?: string; name?: string }) =>
      attempt(async () => {
        dispatch({ type: "contactSaved", contact: await api.saveContact(session.current?.token ?? "", contact) });
      }),
    [api, attempt],
  );

  const typing = useCallback(() => notifier.current?.input(), []);
  const close = useCallback(() => postToParent({ type: "close" }), [postToParent]);

  return { state, send, saveContact, typing, close };
}
