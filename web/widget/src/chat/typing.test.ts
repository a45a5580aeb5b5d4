import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { typingNotifier } from "./typing";

describe("typing notifier", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("says typing once, repeats while typing goes on, and stops after a pause", () => {
    const sent: boolean[] = [];
    const n = typingNotifier((t) => sent.push(t), { repeatMs: 3000, idleMs: 4000 });
    n.input();
    vi.advanceTimersByTime(1000);
    n.input();
    n.input();
    expect(sent).toEqual([true]);
    vi.advanceTimersByTime(2000);
    n.input(); // 3 s after the first signal
    expect(sent).toEqual([true, true]);
    vi.advanceTimersByTime(3999);
    expect(sent).toEqual([true, true]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([true, true, false]);
  });

  it("stops at once on send, and only once", () => {
    const sent: boolean[] = [];
    const n = typingNotifier((t) => sent.push(t));
    n.stop();
    expect(sent).toEqual([]);
    n.input();
    n.stop();
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual([true, false]);
  });
});
