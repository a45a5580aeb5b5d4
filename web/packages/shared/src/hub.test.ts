import { HttpError, type IRetryPolicy } from "@microsoft/signalr";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { closeReason, connectHub, type HubOptions, type HubState, hubRetryDelay, httpStatusOf, refusedStatus } from "./hub";

// A stand-in for the client's HubConnection: start() answers from a script, and the test plays
// the client's own callbacks (reconnecting, reconnected, close) and the server's events.
const fake = vi.hoisted(() => ({
  connections: [] as FakeConnection[],
  /** What the next connection's start() calls do: throw the error, or connect (null or none left). */
  outcomes: [] as (Error | null)[],
}));

interface FakeConnection {
  url: string;
  options: { headers?: Record<string, string>; transport?: unknown };
  policy: IRetryPolicy;
  state: string;
  starts: number;
  outcomes: (Error | null)[];
  handlers: Map<string, (payload: unknown) => void>;
  callbacks: { reconnecting: ((e?: Error) => void)[]; reconnected: (() => void)[]; close: ((e?: Error) => void)[] };
}

vi.mock("@microsoft/signalr", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@microsoft/signalr")>();
  class Builder {
    private url = "";
    private options = {};
    private policy: IRetryPolicy | null = null;
    withUrl(url: string, options: object) {
      this.url = url;
      this.options = options;
      return this;
    }
    withAutomaticReconnect(policy: IRetryPolicy) {
      this.policy = policy;
      return this;
    }
    configureLogging() {
      return this;
    }
    build() {
      const c: FakeConnection = {
        url: this.url,
        options: this.options,
        policy: this.policy!,
        state: "Disconnected",
        starts: 0,
        outcomes: fake.outcomes.splice(0),
        handlers: new Map(),
        callbacks: { reconnecting: [], reconnected: [], close: [] },
      };
      fake.connections.push(c);
      return {
        get state() {
          return c.state;
        },
        on: (name: string, handler: (payload: unknown) => void) => c.handlers.set(name, handler),
        onreconnecting: (f: (e?: Error) => void) => c.callbacks.reconnecting.push(f),
        onreconnected: (f: () => void) => c.callbacks.reconnected.push(f),
        onclose: (f: (e?: Error) => void) => c.callbacks.close.push(f),
        start: async () => {
          c.starts++;
          const outcome = c.outcomes.shift() ?? null;
          if (outcome) throw outcome;
          c.state = "Connected";
        },
        stop: async () => {
          const was = c.state;
          c.state = "Disconnected";
          if (was !== "Disconnected") c.callbacks.close.forEach((f) => f(undefined));
        },
      };
    }
  }
  return { ...actual, HubConnectionBuilder: Builder };
});

const negotiateRefused = (status: number) =>
  new Error(`Failed to complete negotiation with the server: Error: Refused: Status code '${status}'`);

function recorder(overrides: Partial<HubOptions> = {}) {
  const log: string[] = [];
  const states: HubState[] = [];
  const options: HubOptions = {
    url: "http://api/hubs/chat",
    headers: { Authorization: "Bearer t1" },
    events: { MessageCreated: (e: { id: string }) => log.push(`message ${e.id}`) },
    state: (s) => states.push(s),
    connected: (again) => log.push(again ? "connected again" : "connected"),
    reconnecting: (e) => log.push(`reconnecting ${e?.message ?? ""}`.trim()),
    closed: (e, last) => log.push(`closed ${e?.message ?? "-"} / ${refusedStatus(last) ?? "-"}`),
    ...overrides,
  };
  return { log, states, options };
}

/** Lets the start loop's promises settle. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("hub retries", () => {
  it("back off to 30 s and keep trying", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 100].map(hubRetryDelay)).toEqual([0, 1000, 2000, 5000, 10_000, 30_000, 30_000, 30_000]);
  });

  it("read the status of a refused negotiate, wrapped or not", () => {
    expect(httpStatusOf(new HttpError("Unauthorized", 401))).toBe(401);
    expect(httpStatusOf(negotiateRefused(403))).toBe(403);
    expect(httpStatusOf(new Error("WebSocket closed with status code: 1006 ()."))).toBeNull();
    expect(refusedStatus(negotiateRefused(401))).toBe(401);
    expect(refusedStatus(new HttpError("Unavailable", 503))).toBeNull();
    expect(refusedStatus(undefined)).toBeNull();
  });

  it("keep the server's reason for closing", () => {
    expect(
      closeReason(new Error("Server returned an error on close: Connection closed with an error. your access to this workspace has been deactivated")),
    ).toBe("your access to this workspace has been deactivated");
    expect(closeReason(undefined)).toBeNull();
  });
});

describe("the connection loop", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    fake.connections.length = 0;
    fake.outcomes.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it("negotiates over WebSockets with the caller's headers object, and delivers events", async () => {
    const { log, options } = recorder();
    connectHub(options);
    await settle();
    const c = fake.connections[0]!;
    expect(c.options.headers).toBe(options.headers);
    c.handlers.get("MessageCreated")!({ id: "m1" });
    expect(log).toEqual(["connected", "message m1"]);
  });

  it("retries a failed first start with the backoff, and says it connected again", async () => {
    const { log, states, options } = recorder();
    fake.outcomes.push(new Error("offline"), new Error("offline"));
    connectHub(options);
    const c = fake.connections[0]!;
    await settle();
    expect(c.starts).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.starts).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(c.starts).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.starts).toBe(3);
    expect(log).toEqual(["reconnecting offline", "reconnecting offline", "connected again"]);
    expect(states).toEqual(["connecting", "reconnecting", "reconnecting", "connected"]);
  });

  it("gives up when the caller's policy says so, with the refusal", async () => {
    const { log, options } = recorder({ retryDelay: (n, e) => (refusedStatus(e) ? null : hubRetryDelay(n)) });
    fake.outcomes.push(negotiateRefused(403));
    connectHub(options);
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.connections[0]!.starts).toBe(1);
    expect(log).toEqual([`closed ${negotiateRefused(403).message} / 403`]);
  });

  it("stops between attempts at once", async () => {
    const { log, options } = recorder();
    fake.outcomes.push(new Error("offline"));
    const hub = connectHub(options);
    const c = fake.connections[0]!;
    await settle();
    await hub.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(c.starts).toBe(1);
    expect(log).toEqual(["reconnecting offline"]);
  });

  it("reports reconnects, and a close after refused reconnects with the last refusal", async () => {
    const { log, options } = recorder({ retryDelay: (n, e) => (refusedStatus(e) ? null : hubRetryDelay(n)) });
    connectHub(options);
    await settle();
    const c = fake.connections[0]!;
    const dropped = new Error("WebSocket closed with status code: 1006 ().");
    expect(c.policy.nextRetryDelayInMilliseconds({ previousRetryCount: 0, elapsedMilliseconds: 0, retryReason: dropped })).toBe(0);
    c.callbacks.reconnecting.forEach((f) => f(dropped));
    c.callbacks.reconnected.forEach((f) => f());
    // Dropped again; this time negotiate refuses the token, and the policy gives up.
    expect(c.policy.nextRetryDelayInMilliseconds({ previousRetryCount: 1, elapsedMilliseconds: 0, retryReason: negotiateRefused(401) })).toBeNull();
    c.callbacks.close.forEach((f) => f(undefined));
    expect(log).toEqual(["connected", `reconnecting ${dropped.message}`, "connected again", "closed - / 401"]);
  });

  it("says nothing of a close it asked for", async () => {
    const { log, states, options } = recorder();
    const hub = connectHub(options);
    await settle();
    expect(hub.isConnected()).toBe(true);
    await hub.stop();
    expect(hub.isConnected()).toBe(false);
    expect(log).toEqual(["connected"]);
    expect(states.at(-1)).toBe("closed");
  });
});
