// The connection to the chat hub, as both apps make it, through the official @microsoft/signalr
// client: WebSockets only, the credential in the `headers` option (sent on negotiate only: in a
// browser, accessTokenFactory would put it in the WebSocket URL, which the API refuses with
// 401), backoff for ever unless the caller's policy gives up, and the first start retried by the
// same policy (the client's automatic reconnect only covers a connection that was up).
// The caller keeps the `headers` object and writes each renewed token into it: the client reads
// it on every negotiate, so reconnects after a renewal use the fresh token.

import {
  HttpError,
  HttpTransportType,
  type HubConnection,
  HubConnectionBuilder,
  HubConnectionState,
  LogLevel,
} from "@microsoft/signalr";

/** Reconnect backoff: at once, then 1, 2, 5 and 10 s, then every 30 s. */
export const HUB_RETRIES_MS: readonly number[] = [0, 1000, 2000, 5000, 10_000, 30_000];

/** The wait before attempt `previousRetryCount + 1`, capped at 30 s: a page left open comes back by itself. */
export function hubRetryDelay(previousRetryCount: number): number {
  return HUB_RETRIES_MS[Math.min(Math.max(0, previousRetryCount), HUB_RETRIES_MS.length - 1)] ?? 30_000;
}

/**
 * The HTTP status of a failed negotiate, or null. The client wraps negotiate's HttpError in an
 * error of its own that keeps only the text ("Failed to complete negotiation with the server:
 * Error: Unauthorized: Status code '401'"), so the text counts too.
 */
export function httpStatusOf(error: unknown): number | null {
  if (error instanceof HttpError) return error.statusCode;
  if (!(error instanceof Error)) return null;
  const match = /Status code '(\d{3})'/.exec(error.message);
  return match ? Number(match[1]) : null;
}

/** 401 or 403 from negotiate: the credential was refused, and trying again will not change that. */
export function refusedStatus(error: unknown): 401 | 403 | null {
  const status = httpStatusOf(error);
  return status === 401 || status === 403 ? status : null;
}

/** The server's reason from the client's "Server returned an error on close: ..." error. */
export function closeReason(error: Error | undefined): string | null {
  if (!error?.message) return null;
  return (
    error.message.replace(/^Server returned an error on close: /, "").replace(/^Connection closed with an error\.\s*/, "") ||
    null
  );
}

export type HubState = "connecting" | "connected" | "reconnecting" | "closed";

/**
 * Server -> client events by name. A handler's payload type is its own business (the hub sends
 * JSON); handlers return nothing, since a returned value would be taken as a result for the server.
 */
export type HubEventHandlers = Record<string, (payload: never) => void>;

export interface HubOptions {
  url: string;
  /** Sent on every negotiate; rewrite `Authorization` in place to renew the credential. */
  headers: Record<string, string>;
  events: HubEventHandlers;
  /**
   * Milliseconds before the next attempt after `error` (`previousRetryCount` counts the failed
   * attempts so far, from 0), or null to give up. Asked for first starts and reconnects alike.
   * Defaults to `hubRetryDelay`, for ever.
   */
  retryDelay?(previousRetryCount: number, error: unknown): number | null;
  state?(state: HubState): void;
  /** Connected: the first time (`again` false) or after a gap (`again` true: reload what was missed). */
  connected(again: boolean): void;
  /** The connection dropped, or an attempt failed; another follows. */
  reconnecting?(error: Error | undefined): void;
  /**
   * Closed for good, other than by `stop()`: the server's Close without reconnect, or the retry
   * policy gave up. `error` is the close's; `lastFailure` the last failed attempt's, or null.
   */
  closed(error: Error | undefined, lastFailure: unknown): void;
}

export interface Hub {
  readonly connection: HubConnection;
  isConnected(): boolean;
  stop(): Promise<void>;
}

export function connectHub(options: HubOptions): Hub {
  const retryDelay = options.retryDelay ?? ((count: number) => hubRetryDelay(count));
  /** The last failed attempt (negotiate refused, socket failed), until a connection is up again. */
  let lastFailure: unknown = null;
  const connection = new HubConnectionBuilder()
    .withUrl(options.url, { headers: options.headers, transport: HttpTransportType.WebSockets, withCredentials: false })
    .withAutomaticReconnect({
      nextRetryDelayInMilliseconds(ctx) {
        if (ctx.previousRetryCount > 0) lastFailure = ctx.retryReason;
        return retryDelay(ctx.previousRetryCount, ctx.retryReason);
      },
    })
    .configureLogging(LogLevel.Warning)
    .build();
  for (const [name, handler] of Object.entries(options.events)) {
    connection.on(name, (payload: unknown) => void handler(payload as never));
  }

  let stopped = false;
  /** The first-start loop's pause between attempts, ended by stop(). */
  let pause: { timer: ReturnType<typeof setTimeout>; end(): void } | null = null;

  connection.onreconnecting((error) => {
    options.state?.("reconnecting");
    options.reconnecting?.(error);
  });
  connection.onreconnected(() => {
    lastFailure = null;
    options.state?.("connected");
    options.connected(true);
  });
  connection.onclose((error) => {
    options.state?.("closed");
    if (!stopped) options.closed(error, lastFailure);
  });

  options.state?.("connecting");
  void (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await connection.start();
        if (stopped) return;
        lastFailure = null;
        options.state?.("connected");
        options.connected(attempt > 0);
        return;
      } catch (error) {
        if (stopped) return;
        lastFailure = error;
        const wait = retryDelay(attempt + 1, error);
        const asError = error instanceof Error ? error : undefined;
        if (wait === null) {
          options.state?.("closed");
          options.closed(asError, error);
          return;
        }
        options.state?.("reconnecting");
        options.reconnecting?.(asError);
        await new Promise<void>((end) => {
          pause = { timer: setTimeout(end, wait), end };
        });
        pause = null;
      }
    }
  })();

  return {
    connection,
    isConnected: () => connection.state === HubConnectionState.Connected,
    stop() {
      stopped = true;
      if (pause) {
        clearTimeout(pause.timer);
        pause.end();
      }
      return connection.stop();
    },
  };
}
