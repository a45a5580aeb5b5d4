// The visitor's connection to the chat hub: the shared connection loop
// (@supportdesk/shared/hub: WebSockets, the visitor token in the negotiate request's headers,
// backoff for ever) with the visitor's events. A widget left open comes back by itself after
// any outage; only the server's Close with allowReconnect: false ends it. Every attempt refused
// with 401 asks for a fresh token (the caller throttles), which the caller writes into
// `headers`, read on every negotiate.

import { connectHub as connectSharedHub, type Hub, hubRetryDelay, httpStatusOf } from "@supportdesk/shared/hub";
import type { ConversationUpdated, MessageCreated, TypingEvent } from "./types";

export type { Hub };

export interface HubEvents {
  messageCreated(event: MessageCreated): void;
  conversationUpdated(event: ConversationUpdated): void;
  typing(event: TypingEvent): void;
  /** Connected (first time or again): the caller reloads what it may have missed. */
  connected(): void;
  reconnecting(error?: Error): void;
  /** A (re)connect attempt was refused with 401: the token needs renewing. Every attempt. */
  unauthorized(): void;
  /** Closed for good: the server said allowReconnect: false. */
  closed(error?: Error): void;
}

/**
 * A 401 from negotiate (as the client reports it, or wrapped: its text keeps the status), or the
 * server's close when the token ran out ("the token expired").
 */
export function isUnauthorized(error: unknown): boolean {
  if (httpStatusOf(error) !== null) return httpStatusOf(error) === 401;
  return error instanceof Error && /unauthori[sz]ed|token expired/i.test(error.message);
}

/** Backoff for ever; every attempt refused with 401 also asks for a fresh token (throttled there). */
export function visitorRetryDelay(unauthorized: () => void): (previousRetryCount: number, error: unknown) => number {
  return (previousRetryCount, error) => {
    if (isUnauthorized(error)) unauthorized();
    return hubRetryDelay(previousRetryCount);
  };
}

export function connectHub(url: string, headers: Record<string, string>, events: HubEvents): Hub {
  return connectSharedHub({
    url,
    headers,
    events: {
      MessageCreated: events.messageCreated,
      ConversationUpdated: events.conversationUpdated,
      Typing: events.typing,
    },
    retryDelay: visitorRetryDelay(events.unauthorized),
    connected: () => events.connected(),
    reconnecting: events.reconnecting,
    closed: (error) => events.closed(error),
  });
}
