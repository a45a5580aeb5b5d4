// The visitor's connection to the chat hub, through the official @microsoft/signalr client.
// The token goes in the `headers` option, which the client sends on negotiate only: in a
// browser, accessTokenFactory would put it in the WebSocket URL, which the API refuses (401).
// The caller keeps the `headers` object and updates it with each renewed token; the client
// reads it on every negotiate, so reconnects after expiry use the fresh token.

import {
  HttpError,
  HttpTransportType,
  HubConnection,
  HubConnectionBuilder,
  HubConnectionState,
  LogLevel,
  type IRetryPolicy,
} from "@microsoft/signalr";
import { hubRetryDelay } from "./timing";
import type { ConversationUpdated, MessageCreated, TypingEvent } from "./types";

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

export interface Hub {
  readonly connection: HubConnection;
  isConnected(): boolean;
  stop(): Promise<void>;
}

/**
 * A 401 from negotiate, or the server's close when the token ran out ("the token expired").
 * The client wraps negotiate's HttpError in an error of its own, keeping only the text
 * ("...: Status code '401'"), so the text counts too.
 */
export function isUnauthorized(error: unknown): boolean {
  if (error instanceof HttpError) return error.statusCode === 401;
  return error instanceof Error && /Status code '401'|unauthori[sz]ed|token expired/i.test(error.message);
}

/** Backoff forever; every attempt refused with 401 also asks for a fresh token (throttled there). */
export function retryPolicy(unauthorized: () => void): IRetryPolicy {
  return {
    nextRetryDelayInMilliseconds(ctx) {
      if (isUnauthorized(ctx.retryReason)) unauthorized();
      return hubRetryDelay(ctx.previousRetryCount);
    },
  };
}

export function connectHub(url: string, headers: Record<string, string>, events: HubEvents): Hub {
  const connection = new HubConnectionBuilder()
    .withUrl(url, { headers, transport: HttpTransportType.WebSockets, withCredentials: false })
    .withAutomaticReconnect(retryPolicy(events.unauthorized))
    .configureLogging(LogLevel.Warning)
    .build();
  connection.on("MessageCreated", events.messageCreated);
  connection.on("ConversationUpdated", events.conversationUpdated);
  connection.on("Typing", events.typing);
  connection.onreconnecting(events.reconnecting);
  connection.onreconnected(() => events.connected());

  let stopped = false;
  /** The first-start loop's pause between attempts, ended by stop(). */
  let pause: { timer: ReturnType<typeof setTimeout>; end(): void } | null = null;
  connection.onclose((error) => {
    if (!stopped) events.closed(error);
  });

  // Automatic reconnect covers a connection that was up; the first start is retried here.
  void (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await connection.start();
        if (!stopped) events.connected();
        return;
      } catch (error) {
        if (stopped) return;
        events.reconnecting(error instanceof Error ? error : undefined);
        if (isUnauthorized(error)) events.unauthorized();
        await new Promise<void>((end) => {
          pause = { timer: setTimeout(end, hubRetryDelay(attempt + 1)), end };
        });
        pause = null;
      }
    }
  })();

  return {
    connection,
    isConnected: () => connection.state === HubConnectionState.Connected,
    stop: () => {
      stopped = true;
      if (pause) {
        clearTimeout(pause.timer);
        pause.end();
      }
      return connection.stop();
    },
  };
}
