"use client";

// Everything the chat page does outside rendering: the postMessage handshake with the loader
// (which creates sessions on the customer's page), keeping the visitor id in this origin's
// storage, token renewal, the hub connection with its reconnects, and the REST calls; the
// visitor's context (host page, time zone) and read reports, both best effort; files (uploads,
// and fresh links for those shown); the rating of a resolution; the team's business hours, read
// again whenever they begin or end. State changes go through the pure reducer in state.ts.

import { typingNotifier, type TypingNotifier } from "@supportdesk/shared/typing";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import {
  envelope,
  fromExpected,
  parseFromLoader,
  type FromWidget,
  type HostPage,
  type WidgetSession,
} from "@/loader/protocol";
import { ApiError, visitorApi } from "./api";
import { availabilityRecheckDelay, availabilityRetryDelay } from "./availability";
import { browserContext, visitorContext } from "./context";
import { connectHub, type Hub } from "./hub";
import { READ_DEBOUNCE_MS, replyToReport } from "./read";
import { newRating } from "./rating";
import { initialState, reducer, sentMessage, type ChatState } from "./state";
import { clockOffset, renewalDelay, renewalWait, sendBlockedUntil, sessionErrorRetryable, sessionRetryDelay } from "./timing";
import type { Attachment, Conversation, Message, MessageCreated } from "./types";

const TYPING_SWEEP_MS = 1000;

export const NOT_EMBEDDED = "This is the chat window of a website's Support Desk widget. Open the website to chat.";

export interface Chat {
  state: ChatState;
  /** Counts the loader's `open` messages: the message box takes the focus on each. */
  opened: number;
  /** Sends a message; with files (their ids, uploaded by `upload`) it goes by REST. */
  send(body: string, attachmentIds?: string[]): Promise<boolean>;
  /** Uploads a file to send; throws ApiError with the API's detail when refused. */
  upload(file: File, signal: AbortSignal): Promise<Attachment>;
  /** A file shown in the conversation, with fresh links. */
  freshAttachment(id: string): Promise<Attachment>;
  saveContact(contact: { email?: string; name?: string }): Promise<boolean>;
  /** Rates the resolved conversation, 1 to 5, with an optional comment; true when stored. */
  rate(rating: number, comment: string): Promise<boolean>;
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

/** Whether this document is visible (its tab in front), as it changes. */
function usePageVisible(): boolean {
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    update();
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  return visible;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Server returned an error on close: /, "");
}

export function useChat({ apiUrl, hubUrl }: { apiUrl: string; hubUrl: string }): Chat {
  const [state, dispatch] = useReducer(reducer, initialState);
  const [opened, setOpened] = useState(0);
  const session = useRef<WidgetSession | null>(null);
  const messages = useRef<Message[]>([]);
  /** The customer's page, learned from its `hello`; every later message must come from it. */
  const parentOrigin = useRef<string | null>(null);
  /** Read by the hub client on every negotiate: updated in place with each token. */
  const headers = useRef<Record<string, string>>({});
  const hub = useRef<Hub | null>(null);
  const notifier = useRef<TypingNotifier | null>(null);
  /** When the last renewal request went out, and the one waiting for the throttle, if any. */
  const lastRenewal = useRef<number | null>(null);
  const pendingRenewal = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** When (local clock) the current token is due for renewal. */
  const renewAt = useRef(Infinity);
  /** How far the API's clock is ahead of this device's (ms), from the current token. */
  const apiClockAhead = useRef(0);
  /** The host page, from the loader; and the address last sent to the API. */
  const page = useRef<HostPage | null>(null);
  const contextSentFor = useRef<string | null>(null);
  /** The newest agent reply reported as read. */
  const [reported, setReported] = useState<string | null>(null);
  const visible = usePageVisible();

  const postToParent = useCallback((message: FromWidget) => {
    if (parentOrigin.current) window.parent.postMessage(envelope(message), parentOrigin.current);
  }, []);

  /** At most one renewal request a minute, whatever asks; one asked sooner waits its turn. */
  const requestRenewal = useCallback(() => {
    if (pendingRenewal.current !== undefined) return;
    pendingRenewal.current = setTimeout(() => {
      pendingRenewal.current = undefined;
      lastRenewal.current = Date.now();
      postToParent({ type: "renew" });
    }, renewalWait(Date.now(), lastRenewal.current));
  }, [postToParent]);

  const cancelRenewal = useCallback(() => {
    clearTimeout(pendingRenewal.current);
    pendingRenewal.current = undefined;
  }, []);

  const api = useMemo(() => visitorApi(apiUrl), [apiUrl]);

  /**
   * Tells the API where the visitor is. Best effort: an API that refuses or lacks the route
   * changes nothing the visitor sees.
   */
  const sendContext = useCallback(() => {
    const token = session.current?.token;
    if (!token) return;
    const { timeZone, locale } = browserContext();
    contextSentFor.current = page.current?.url ?? null;
    api.context(token, visitorContext(page.current, timeZone, locale)).catch(() => undefined);
  }, [api]);

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
    if (state.session) {
      headers.current.Authorization = `Bearer ${state.session.token}`;
      apiClockAhead.current = clockOffset(state.session.token, Date.now());
    }
  }, [state.session]);

  useEffect(() => {
    messages.current = state.messages;
  }, [state.messages]);

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
        page.current = m.page;
        const stored = readVisitorId(storageKey);
        postToParent({ type: "visitor", visitorId: stored ?? null, stored: stored !== undefined });
        return;
      }
      if (!fromExpected(event, window.parent, parentOrigin.current)) return;
      if (m.type === "open") {
        setOpened((n) => n + 1);
        dispatch({ type: "panel", open: true });
        return;
      }
      if (m.type === "closed") {
        dispatch({ type: "panel", open: false });
        return;
      }
      if (m.type === "page") {
        page.current = m.page;
        if (m.page.url !== contextSentFor.current) sendContext();
        return;
      }
      clearTimeout(retry);
      if (m.type === "session") {
        cancelRenewal(); // whatever asked for a token has one now
        if (storageKey) storeVisitorId(storageKey, m.session.visitorId);
        dispatch({ type: "session", reason: m.reason, session: m.session });
      } else {
        dispatch({ type: "error", message: m.detail });
        if (sessionErrorRetryable(m.status)) {
          retry = setTimeout(requestRenewal, sessionRetryDelay(m.retryAfter));
        }
      }
    };
    window.addEventListener("message", onMessage);
    // Nothing secret in "ready": any parent may hear it, and gets a reply only after `hello`.
    window.parent.postMessage(envelope({ type: "ready" }), "*");
    return () => {
      window.removeEventListener("message", onMessage);
      clearTimeout(retry);
      cancelRenewal();
    };
  }, [postToParent, requestRenewal, cancelRenewal, sendContext]);

  // Each visitor's session starts by saying where the visitor is.
  useEffect(() => {
    if (state.generation > 0) sendContext();
  }, [state.generation, sendContext]);

  // The launcher's badge.
  useEffect(() => {
    postToParent({ type: "unread", count: state.unread });
  }, [state.unread, postToParent]);

  // Read reports: what an open, visible chat shows, a moment after it shows it. Best effort
  // like the context: a failed report is not retried; the next reply reports again.
  const toReport = replyToReport({ panelOpen: state.panelOpen, visible, messages: state.messages, reported });
  useEffect(() => {
    if (!toReport) return;
    const timer = setTimeout(() => {
      const token = session.current?.token;
      if (!token) return;
      setReported(toReport);
      api.markRead(token).catch(() => undefined);
    }, READ_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [toReport, api]);

  // A fresh token a little before this one expires, counted from its arrival (now).
  useEffect(() => {
    if (!state.session) return;
    const delay = renewalDelay(state.session, Date.now());
    renewAt.current = Date.now() + delay;
    const timer = setTimeout(requestRenewal, delay);
    return () => clearTimeout(timer);
  }, [state.session, requestRenewal]);

  // One hub connection per visitor (generation); renewals only update `headers`. The business
  // hours are read with the conversation, then again once they begin or end (or within the hour).
  useEffect(() => {
    if (state.generation === 0) return;
    let live = true;
    let availabilityTimer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      const requestedAt = Date.now();
      try {
        const conversation = await api.conversation(session.current?.token ?? "");
        if (live) dispatch({ type: "conversationLoaded", conversation, requestedAt });
      } catch (error) {
        if (live) fail(error);
      }
    };
    const loadAvailability = async () => {
      const requestedAt = Date.now();
      let wait: number;
      try {
        const availability = await api.availability(session.current?.token ?? "");
        if (!live) return;
        dispatch({ type: "availabilityLoaded", availability, requestedAt });
        wait = availabilityRecheckDelay(availability.changesAt, Date.now() + apiClockAhead.current);
      } catch (error) {
        if (!live) return;
        // Nothing to show: the chat works the same without it, and the next read may pass.
        if (error instanceof ApiError && error.status === 401) requestRenewal();
        wait = availabilityRetryDelay(error);
      }
      clearTimeout(availabilityTimer);
      availabilityTimer = setTimeout(() => void loadAvailability(), wait);
    };
    const connection = connectHub(hubUrl, headers.current, {
      messageCreated: (event) => dispatch({ type: "messageCreated", event }),
      conversationUpdated: (event) => {
        dispatch({ type: "conversationUpdated", event, at: Date.now() });
        // The event does not say whether to ask for a rating; the conversation does.
        if (event.status === "resolved") void load();
      },
      typing: (event) => dispatch({ type: "typing", event, now: Date.now() }),
      connected: () => {
        dispatch({ type: "connection", status: "connected" });
        void load(); // whatever happened while we were away
        void loadAvailability();
      },
      reconnecting: () => {
        dispatch({ type: "connection", status: "reconnecting" });
        if (Date.now() >= renewAt.current) requestRenewal();
      },
      unauthorized: requestRenewal,
      closed: (error) => {
        dispatch({ type: "connection", status: "disconnected" });
        if (error) dispatch({ type: "error", message: messageOf(error) });
      },
    });
    hub.current = connection;
    void load(); // show the history before the hub is up
    void loadAvailability();
    return () => {
      live = false;
      clearTimeout(availabilityTimer);
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

  /** Reads the conversation again into the state, and returns it. */
  const reread = useCallback(async (): Promise<Conversation | null> => {
    const requestedAt = Date.now();
    const conversation = await api.conversation(session.current?.token ?? "");
    dispatch({ type: "conversationLoaded", conversation, requestedAt });
    return conversation;
  }, [api]);

  /** After the hub dropped mid-send: true when the conversation shows the message arrived. */
  const arrived = useCallback(
    async (body: string, known: Set<string>) => {
      try {
        return sentMessage(await reread(), body, known) !== null;
      } catch {
        return false;
      }
    },
    [reread],
  );

  const send = useCallback(
    async (body: string, attachmentIds: string[] = []) => {
      notifier.current?.stop();
      // Through the hub when it is up; the REST route otherwise (same result). The hub's
      // SendMessage takes text only: a message with files always goes by REST.
      const viaHub = hub.current?.isConnected() && attachmentIds.length === 0 ? hub.current : null;
      const known = new Set(messages.current.map((m) => m.id));
      try {
        const result = viaHub
          ? await viaHub.connection.invoke<MessageCreated>("SendMessage", body)
          : await api.send(session.current?.token ?? "", body, attachmentIds);
        dispatch({ type: "messageCreated", event: result });
      } catch (error) {
        const until = sendBlockedUntil(error, Date.now());
        if (until !== null) dispatch({ type: "blocked", until });
        // The connection dropped before the answer: the message may have arrived all the same.
        if (viaHub && !viaHub.isConnected() && (await arrived(body, known))) {
          dispatch({ type: "error", message: null });
          return true;
        }
        fail(error);
        return false;
      }
      dispatch({ type: "error", message: null });
      return true;
    },
    [api, arrived, fail],
  );

  const saveContact = useCallback(
    (contact: { email?: string; name?: string }) =>
      attempt(async () => {
        dispatch({ type: "contactSaved", contact: await api.saveContact(session.current?.token ?? "", contact) });
      }),
    [api, attempt],
  );

  const rate = useCallback(
    async (rating: number, comment: string) => {
      try {
        const stored = await api.rate(session.current?.token ?? "", newRating(rating, comment));
        dispatch({ type: "rated", rating: stored });
        dispatch({ type: "error", message: null });
        return true;
      } catch (error) {
        fail(error);
        // Rated already (another tab), reopened, or no longer asked: the conversation says which.
        if (error instanceof ApiError && error.status === 409) reread().catch(() => undefined);
        return false;
      }
    },
    [api, fail, reread],
  );

  /** A visitor-route call whose 401 asks the loader for a fresh token (the caller shows the error). */
  const withToken = useCallback(
    async <T>(call: (token: string) => Promise<T>): Promise<T> => {
      try {
        return await call(session.current?.token ?? "");
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) requestRenewal();
        throw error;
      }
    },
    [requestRenewal],
  );
  const upload = useCallback((file: File, signal: AbortSignal) => withToken((token) => api.upload(token, file, signal)), [api, withToken]);
  const freshAttachment = useCallback((id: string) => withToken((token) => api.attachment(token, id)), [api, withToken]);

  const typing = useCallback(() => notifier.current?.input(), []);
  const close = useCallback(() => postToParent({ type: "close" }), [postToParent]);

  return { state, opened, send, upload, freshAttachment, saveContact, rate, typing, close };
}
