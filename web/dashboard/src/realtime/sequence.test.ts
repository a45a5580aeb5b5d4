import { describe, expect, it, vi } from "vitest";
import { type LogPage, SequenceTracker } from "./sequence";

interface E {
  seq: number;
}

/** A workspace's log: events 1..head, served as GET /api/events would. */
function log(head: number) {
  const events: E[] = Array.from({ length: head }, (_, i) => ({ seq: i + 1 }));
  return {
    events,
    page(after: number | null, limit: number): LogPage<E> {
      const top = events.length;
      if (after === null) return { events: [], nextAfter: top, head: top };
      const page = events.filter((e) => e.seq > after).slice(0, limit);
      return { events: page, nextAfter: page.at(-1)?.seq ?? after, head: top };
    },
  };
}

/** A deferred promise, to hold a page back while live events arrive. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup(server: ReturnType<typeof log>, limit = 100, wait: (ms: number) => Promise<void> = async () => {}) {
  const applied: number[] = [];
  const calls: (number | null)[] = [];
  const reload = vi.fn();
  const failed = vi.fn();
  const fetchPage = vi.fn(async (after: number | null, n: number) => {
    calls.push(after);
    return server.page(after, n);
  });
  const tracker = new SequenceTracker<E>({
    fetchPage,
    apply: (e) => applied.push(e.seq),
    reload,
    failed,
    limit,
    wait,
  });
  return { tracker, applied, calls, reload, failed, fetchPage };
}

/** A tracker that connected once, at `head`. */
async function connectedAt(head: number, limit = 100, wait?: (ms: number) => Promise<void>) {
  const server = log(head);
  const t = setup(server, limit, wait);
  await t.tracker.connected();
  t.calls.length = 0;
  t.reload.mockClear();
  t.fetchPage.mockClear();
  return { ...t, server };
}

describe("the sequence tracker", () => {
  it("takes a cursor from now on the first connect, then reloads every query", async () => {
    const { tracker, calls, reload, applied } = setup(log(41));
    await tracker.connected();
    expect(calls).toEqual([null]);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(tracker.lastSeq).toBe(41);
    expect(applied).toEqual([]);
  });

  it("applies events in order and drops duplicates", async () => {
    const { tracker, applied, calls } = await connectedAt(5);
    tracker.receive({ seq: 6 });
    tracker.receive({ seq: 6 });
    tracker.receive({ seq: 3 });
    tracker.receive({ seq: 7 });
    expect(applied).toEqual([6, 7]);
    expect(tracker.lastSeq).toBe(7);
    expect(calls).toEqual([]);
  });

  it("reads a gap from the log once, and applies what arrived live meanwhile once, after it", async () => {
    const { tracker, applied, server, fetchPage } = await connectedAt(5);
    server.events.push({ seq: 6 }, { seq: 7 }, { seq: 8 });
    const held = deferred<LogPage<E>>();
    fetchPage.mockImplementationOnce(async (after, n) => {
      const page = server.page(after, n);
      return held.promise.then(() => page);
    });
    tracker.receive({ seq: 8 }); // 6 and 7 missed
    expect(tracker.syncing).toBe(true);
    server.events.push({ seq: 9 }, { seq: 10 });
    tracker.receive({ seq: 10 }); // out of order, during the catch-up
    tracker.receive({ seq: 9 });
    tracker.receive({ seq: 7 }); // late, and in the page
    expect(applied).toEqual([]);
    held.resolve({ events: [], nextAfter: 0, head: 0 });
    await vi.waitFor(() => expect(tracker.syncing).toBe(false));
    expect(fetchPage).toHaveBeenCalledTimes(1);
    expect(fetchPage).toHaveBeenCalledWith(5, 100);
    expect(applied).toEqual([6, 7, 8, 9, 10]);
    tracker.receive({ seq: 11 });
    expect(applied.at(-1)).toBe(11);
  });

  it("reads page by page until a page comes back short", async () => {
    const { tracker, applied, server, calls } = await connectedAt(0, 4);
    for (let seq = 1; seq <= 10; seq++) server.events.push({ seq });
    await tracker.connected(); // a reconnect after 10 missed changes
    expect(calls).toEqual([0, 4, 8]);
    expect(applied).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("reads one page more when the last page was exactly full", async () => {
    const { tracker, server, calls } = await connectedAt(0, 5);
    for (let seq = 1; seq <= 5; seq++) server.events.push({ seq });
    await tracker.connected();
    expect(calls).toEqual([0, 5]);
  });

  it("catches up from the last seq on every reconnect, without reloading", async () => {
    const { tracker, applied, server, reload, calls } = await connectedAt(3);
    server.events.push({ seq: 4 }, { seq: 5 });
    await tracker.connected();
    expect(calls).toEqual([3]);
    expect(applied).toEqual([4, 5]);
    expect(reload).not.toHaveBeenCalled();
  });

  it("on 410 reloads every query and restarts from the head", async () => {
    const { tracker, applied, server, reload, calls, fetchPage } = await connectedAt(3);
    for (let seq = 4; seq <= 12; seq++) server.events.push({ seq });
    fetchPage.mockImplementationOnce(async (after) => {
      calls.push(after);
      throw Object.assign(new Error("gone"), { status: 410 });
    });
    tracker.receive({ seq: 12 });
    await vi.waitFor(() => expect(tracker.syncing).toBe(false));
    expect(calls).toEqual([3, null]);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(tracker.lastSeq).toBe(12);
    expect(applied).toEqual([]); // 12 is in the reload
    tracker.receive({ seq: 13 });
    expect(applied).toEqual([13]);
  });

  it("falls back to reloading when the log fails, and tries it again on the next connect", async () => {
    const { tracker, applied, server, reload, failed, fetchPage } = await connectedAt(3);
    server.events.push({ seq: 4 }, { seq: 5 });
    fetchPage.mockRejectedValueOnce(Object.assign(new Error("offline"), { status: 0 }));
    tracker.receive({ seq: 5 });
    await vi.waitFor(() => expect(failed).toHaveBeenCalledTimes(1));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(applied).toEqual([5]); // the buffered event, folded as it came
    tracker.receive({ seq: 7 }); // untracked: folded as it comes
    expect(applied).toEqual([5, 7]);
    server.events.push({ seq: 6 }, { seq: 7 }, { seq: 8 });
    await tracker.connected();
    expect(tracker.lastSeq).toBe(8);
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it("drops a catch-up that a reconnect replaced", async () => {
    const { tracker, applied, server, fetchPage } = await connectedAt(2);
    server.events.push({ seq: 3 }, { seq: 4 });
    const held = deferred<void>();
    fetchPage.mockImplementationOnce(async (after, n) => {
      const page = server.page(after, n);
      await held.promise;
      return page;
    });
    tracker.receive({ seq: 4 });
    const reconnected = tracker.connected();
    held.resolve();
    await reconnected;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(applied).toEqual([3, 4]);
  });

  it("waits for a log that lags behind the hub, then catches up", async () => {
    const waits: number[] = [];
    const t = await connectedAt(2, 100, async (ms) => {
      waits.push(ms);
      if (waits.length === 2) t.server.events.push({ seq: 3 }, { seq: 4 }); // the log catches up
    });
    t.tracker.receive({ seq: 4 }); // the log does not have 3 and 4 yet
    await vi.waitFor(() => expect(t.tracker.syncing).toBe(false));
    expect(t.calls).toEqual([2, 2, 2]);
    expect(waits).toEqual([250, 1000]);
    expect(t.applied).toEqual([3, 4]);
    expect(t.failed).not.toHaveBeenCalled();
  });

  it("gives up on a log that never holds what the hub sent, and reloads", async () => {
    const { tracker, reload, failed, applied } = await connectedAt(2);
    tracker.receive({ seq: 4 });
    await vi.waitFor(() => expect(failed).toHaveBeenCalledTimes(1));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(applied).toEqual([4]);
  });

  it("ignores what arrives after stop()", async () => {
    const { tracker, applied, server, fetchPage } = await connectedAt(1);
    server.events.push({ seq: 2 }, { seq: 3 });
    const held = deferred<void>();
    fetchPage.mockImplementationOnce(async (after, n) => {
      const page = server.page(after, n);
      await held.promise;
      return page;
    });
    tracker.receive({ seq: 3 });
    tracker.stop();
    held.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(applied).toEqual([]);
  });
});
