import { describe, expect, it } from "vitest";
import { type KeyPress, sendHint, sendsReply } from "./replyKeys";

const press = (overrides: Partial<KeyPress>): KeyPress => ({ key: "Enter", shiftKey: false, ctrlKey: false, metaKey: false, isComposing: false, ...overrides });

describe("sendsReply", () => {
  it("with Enter to send: Enter sends, Shift+Enter does not", () => {
    expect(sendsReply(press({}), true)).toBe(true);
    expect(sendsReply(press({ shiftKey: true }), true)).toBe(false);
  });
  it("without: Enter and Shift+Enter make lines, Ctrl or Cmd+Enter sends", () => {
    expect(sendsReply(press({}), false)).toBe(false);
    expect(sendsReply(press({ shiftKey: true }), false)).toBe(false);
    expect(sendsReply(press({ ctrlKey: true }), false)).toBe(true);
    expect(sendsReply(press({ metaKey: true }), false)).toBe(true);
  });
  it("never sends on another key or while an input method composes", () => {
    expect(sendsReply(press({ key: "a" }), true)).toBe(false);
    expect(sendsReply(press({ isComposing: true }), true)).toBe(false);
  });
  it("names the active rule", () => {
    expect(sendHint(true)).toMatch(/^Enter sends/);
    expect(sendHint(false)).toMatch(/^Ctrl\+Enter/);
  });
});
