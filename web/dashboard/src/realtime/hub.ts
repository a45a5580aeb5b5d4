// The agent's connection to the chat hub, through the official @microsoft/signalr client.
// The workspace token goes in the `headers` option, which the client sends on negotiate:
// in a browser, accessTokenFactory would put it in the WebSocket URL, which the API refuses
// (401). The caller keeps the `headers` object and writes each renewed token into it; the
// client reads it on every negotiate, so reconnects after a renewal use the fresh token.

import {
  HttpError,
  HttpTransportType,
  type HubConnection,
  HubConnectionBuilder,
  LogLevel,
} from "@microsoft/signalr";
import type { ConversationCreated, ConversationUpdated, MessageCreated, PresenceChanged, TypingEvent } from "./events";

export type HubState = "connecting" | "connected" | "reconnecting" | "closed";

export interface HubHandlers {
  messageCreated(event: MessageCreated): void;
  conversationCreated(event: ConversationCreated): void;
  conversationUpdated(event: ConversationUpdated): void;
  typing(event: TypingEvent): void;
  presenceChanged(event: PresenceChanged): void;
  state(state: HubState): void;
  /** Connected again after a gap: whatever was missed meanwhile should be refetched. */
  resynced(): void;
  /**
   * The server closed the connection for good (Close with allowReconnect: false: deactivated,
   * role changed, workspace deleted) or refused to let it back in (401/403 on negotiate).
   */
  ended(reason: string | null, status: number | null): void;
}

export interface AgentHub {
  readonly connection: HubConnection;
  stop(): Promise<void>;
}

const RETRIES_MS = [0, 1000, 2000, 5000, 10_000, 30_000];

/** Reconnect backoff, forever (capped at 30 s); none after 401/403, which will not change by retrying. */
export function hubRetryDelay(previousRetryCount: number, error: unknown): number | null {
  if (refusedStatus(error) !== null) return null;
  return RETRIES_MS[Math.min(previousRetryCount, RETRIES_MS.length - 1)] ?? 30_000;
}

export function refusedStatus(error: unknown): number | null {
  return error instanceof HttpError && (error.statusCode === 401 || error.statusCode === 403) ? error.statusCode : null;
}

/** The server's reason from the client's "Server returned an error on close: ..." error. */
export function closeReason(error: Error | undefined): string | null {
  if (!error?.message) return null;
  return error.message.replace(/^Server returned an error on close: /, "").replace(/^Connection closed with an error\.\s*/, "") || null;
}

export function connectAgentHub(url: string, headers: Record<string, string>, on: HubHandlers): AgentHub {
  const connection = new HubConnectionBuilder()
    .withUrl(url, { headers, transport: HttpTransportType.WebSockets, withCredentials: false })
    .withAutomaticReconnect({ nextRetryDelayInMilliseconds: (ctx) => hubRetryDelay(ctx.previousRetryCount, ctx.retryReason) })
    .configureLogging(LogLevel.Warning)
    .build();
  // Handlers return nothing: a returned value would be taken as a result for the server.
  connection.on("MessageCreated", (event: MessageCreated) => void on.messageCreated(event));
  connection.on("ConversationCreated", (event: ConversationCreated) => void on.conversationCreated(event));
  connection.on("ConversationUpdated", (event: ConversationUpdated) => void on.conversationUpdated(event));
  connection.on("Typing", (event: TypingEvent) => void on.typing(event));
  connection.on("PresenceChanged", (event: PresenceChanged) => void on.presenceChanged(event));
  connection.onreconnecting(() => on.state("reconnecting"));
  connection.onreconnected(() => {
    on.state("connected");
    on.resynced();
  });

  let stopped = false;
  let lastError: unknown = null;
  connection.onclose((error) => {
    on.state("closed");
    if (stopped) return;
    const status = refusedStatus(lastError);
    on.ended(closeReason(error), status);
  });

  // Automatic reconnect covers a connection that was up; the first start is retried here.
  on.state("connecting");
  void (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await connection.start();
        if (stopped) return;
        on.state("connected");
        if (attempt > 0) on.resynced();
        return;
      } catch (error) {
        if (stopped) return;
        lastError = error;
        const status = refusedStatus(error);
        if (status !== null) {
          on.state("closed");
          on.ended(error instanceof Error ? error.message : null, status);
          return;
        }
        on.state("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, hubRetryDelay(attempt + 1, error) ?? 30_000));
      }
    }
  })();

  return {
    connection,
    async stop() {
      stopped = true;
      await connection.stop();
    },
  };
}
