// Keeping the cache in step with the workspace's event log. Every logged change has a `seq`
// (strictly increasing per workspace, no gaps once committed) and reaches this tab either live
// (a hub event carrying it) or from GET /api/events. The tracker remembers the last seq
// applied and:
// - drops an event at or below it (a duplicate: the hub and the log crossing, a replayed page);
// - applies the next one (last + 1) at once;
// - on a gap (seq > last + 1) reads the log after `last`, page by page until a page comes back
//   short, applies it in order, then whatever arrived live meanwhile (buffered, once each);
// - on every (re)connect catches up from `last` the same way, or, knowing none yet, takes a
//   cursor "from now" (GET /api/events without `after`) and then reloads every query;
// - on 410 (`after` older than the log keeps), reloads every query from a fresh cursor.
// Should the log fail otherwise (network, a server without it), it reloads every query as a
// reconnect always did, and applies live events as they come until the next (re)connect tries
// the log again. No React, no timers of its own: unit-tested with plain functions.

/** Events per page of GET /api/events (the API allows 1 to 1000). */
export const EVENT_PAGE_LIMIT = 500;

/** Catch-up rounds without progress (the log behind what the hub said) before giving up. */
const STALL_WAITS_MS = [250, 1000, 3000];

export interface LogPage<E> {
  events: E[];
  nextAfter: number;
  head: number;
}

export interface SequenceDeps<E extends { seq: number }> {
  /** GET /api/events (`after` null: a cursor from now), its events as the tracker applies them. */
  fetchPage(after: number | null, limit: number): Promise<LogPage<E>>;
  /** Folds one change into the cache. */
  apply(event: E): void;
  /** Refetches every query (a fresh load). */
  reload(): void;
  /** Whether a failed fetch was 410 Gone (default: a `status` of 410). */
  isGone?(error: unknown): boolean;
  /** The log failed other than with 410; the tracker has fallen back to reloading. */
  failed?(error: unknown): void;
  /** Waits `ms` (tests pass their own); default setTimeout. */
  wait?(ms: number): Promise<void>;
  limit?: number;
}

function statusIs410(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { status?: unknown }).status === 410;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Thrown to end a sync that a newer one (a reconnect) or stop() replaced. */
class Superseded extends Error {}

export class SequenceTracker<E extends { seq: number }> {
  private last: number | null = null;
  /** tracking: live events in order; syncing: reading the log, live events buffered; untracked: the log failed. */
  private mode: "tracking" | "syncing" | "untracked" = "tracking";
  private buffer: E[] = [];
  /** Bumped by each sync and by stop(): an older sync finds it changed and quits. */
  private generation = 0;
  private readonly limit: number;
  private readonly isGone: (error: unknown) => boolean;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(private readonly deps: SequenceDeps<E>) {
    this.limit = deps.limit ?? EVENT_PAGE_LIMIT;
    this.isGone = deps.isGone ?? statusIs410;
    this.wait = deps.wait ?? sleep;
  }

  /** The last seq applied (null before the first cursor, or after the log failed). */
  get lastSeq(): number | null {
    return this.last;
  }

  get syncing(): boolean {
    return this.mode === "syncing";
  }

  /** A live event (from the hub). */
  receive(event: E): void {
    if (this.mode === "syncing") {
      this.buffer.push(event);
      return;
    }
    if (this.mode === "untracked" || this.last === null) {
      this.deps.apply(event);
      return;
    }
    if (event.seq <= this.last) return;
    if (event.seq === this.last + 1) {
      this.deps.apply(event);
      this.last = event.seq;
      return;
    }
    this.buffer.push(event);
    void this.sync();
  }

  /** The hub connection is up, the first time or again: resolves once caught up. */
  connected(): Promise<void> {
    if (this.mode === "untracked") this.last = null;
    return this.sync();
  }

  /** The connection is gone for good: any sync under way is dropped. */
  stop(): void {
    this.generation++;
    this.buffer = [];
    this.mode = "tracking";
  }

  private async sync(): Promise<void> {
    const generation = ++this.generation;
    const current = () => {
      if (generation !== this.generation) throw new Superseded();
    };
    this.mode = "syncing";
    try {
      let stalls = 0;
      for (;;) {
        const before = this.last;
        try {
          if (this.last === null) {
            const page = await this.deps.fetchPage(null, this.limit);
            current();
            this.last = page.head;
            this.deps.reload();
          } else {
            await this.catchUp(current);
          }
        } catch (error) {
          // 410 on a catch-up: the next round starts from now, with a reload. (A cursor from
          // now cannot be too old: a 410 there is a failure like any other.)
          if (error instanceof Superseded || !this.isGone(error) || before === null) throw error;
          current();
          this.last = null;
          continue;
        }
        if (this.drain()) break;
        // What the hub sent is not in the log yet (a lagging read): wait a little, then again.
        if (this.last === before) {
          const wait = STALL_WAITS_MS[stalls++];
          if (wait === undefined) throw new Error("the event log does not hold the events the hub sent");
          await this.wait(wait);
          current();
        }
      }
      this.mode = "tracking";
    } catch (error) {
      if (error instanceof Superseded) return;
      this.fallBack(error);
    }
  }

  /** Reads and applies the log after `last`, page by page, until a page comes back short. */
  private async catchUp(current: () => void): Promise<void> {
    let after = this.last!;
    for (;;) {
      const page = await this.deps.fetchPage(after, this.limit);
      current();
      for (const event of page.events) this.applyNext(event);
      after = Math.max(page.nextAfter, this.last!);
      if (page.events.length < this.limit) return;
    }
  }

  private applyNext(event: E): void {
    if (this.last !== null && event.seq <= this.last) return;
    this.deps.apply(event);
    this.last = event.seq;
  }

  /** Applies the buffered live events that follow `last`, in order; false when a gap remains. */
  private drain(): boolean {
    this.buffer.sort((a, b) => a.seq - b.seq);
    while (this.buffer.length > 0) {
      const next = this.buffer[0]!;
      if (next.seq > this.last! + 1) return false;
      this.buffer.shift();
      this.applyNext(next);
    }
    return true;
  }

  /** The log failed: reload everything, as a reconnect used to, and follow live events untracked. */
  private fallBack(error: unknown): void {
    this.mode = "untracked";
    this.last = null;
    const buffered = this.buffer;
    this.buffer = [];
    this.deps.failed?.(error);
    this.deps.reload();
    for (const event of buffered.sort((a, b) => a.seq - b.seq)) this.deps.apply(event);
  }
}
