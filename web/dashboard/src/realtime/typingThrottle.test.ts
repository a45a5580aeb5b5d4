import { describe, expect, it } from "vitest";
import { onKeystroke, onStop, TYPING_REPEAT_MS } from "./typingThrottle";

describe("announcing the agent's typing", () => {
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
});
