import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { onKeystroke, onStop, TYPING_REPEAT_MS, TYPING_TTL_MS, typingFresh, typingNotifier } from "./typing";

describe("announcing one's typing", () => {
  it("sends at most one 'typing' per interval", () => {
    const first = onKeystroke({ sentAt: null }, 1000);
    expect(first.send).toBe(true);
    expect(onKeystroke(first.next, 1000 + TYPING_REPEAT_MS - 1).send).toBe(false);
    expect(onKeystroke(first.next, 1000 + TYPING_REPEAT_MS).send).toBe(true);
  });

  it("sends 'stopped' once, and only after 'typing'", () => {
    expect(onStop({ sentAt: null }).send).toBe(false);
    const stopped = onStop({ sentAt: 5 });
    expect(stopped.send).toBe(true);
    expect(onStop(stopped.next).send).toBe(false);
  });

  it("forgets a 'typing' nobody ended after the TTL", () => {
    expect(typingFresh(1000, 1000 + TYPING_TTL_MS - 1)).toBe(true);
    expect(typingFresh(1000, 1000 + TYPING_TTL_MS)).toBe(false);
  });
});

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

  it("says nothing after dispose", () => {
    const sent: boolean[] = [];
    const n = typingNotifier((t) => sent.push(t));
    n.input();
    n.dispose();
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual([true]);
  });
});
