// The visitor's connection to the chat hub, through the official @microsoft/signalr client.
// The token goes in the `headers` option, which the client sends on negotiate only: in a
// browser, accessTokenFactory would put it in the WebSocket URL, which the API refuses (401).
// The caller keeps the `headers` object and updates it with each renewed token; the client
// reads it on every negotiate, so reconnects after expiry use the fresh token.

import {
  HttpTransportType,
  HubConnection,
  HubConnectionBuilder,
  HubConnectionState,
  LogLevel,
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
  /** Closed for good: the server said allowReconnect: false. */
  closed(error?: Error): void;
}

export interface Hub {
  readonly connection: HubConnection;
  isConnected(): boolean;
  stop(): Promise<void>;
}

export function connectHub(url: string, headers: Record<string, string>, events: HubEvents): Hub {
  const connection = new HubConnectionBuilder()
    .withUrl(url, { headers, transport: HttpTransportType.WebSockets, withCredentials: false })
    .withAutomaticReconnect({ nextRetryDelayInMilliseconds: (ctx) => hubRetryDelay(ctx.previousRetryCount) })
    .configureLogging(LogLevel.Warning)
    .build();
  connection.on("MessageCreated", events.messageCreated);
  connection.on("ConversationUpdated", events.conversationUpdated);
  connection.on("Typing", events.typing);
  connection.onreconnecting(events.reconnecting);
  connection.onreconnected(() => events.connected());

  let stopped = false;
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
        await new Promise((resolve) => setTimeout(resolve, hubRetryDelay(attempt + 1)));
      }
    }
  })();

  return {
    connection,
    isConnected: () => connection.state === HubConnectionState.Connected,
    stop: () => {
      stopped = true;
      return connection.stop();
    },
  };
}
