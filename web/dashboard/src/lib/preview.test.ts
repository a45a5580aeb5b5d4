import { describe, expect, it } from "vitest";
import { previewText, rowTime } from "./preview";

const at = "2026-11-26T10:00:00Z";

describe("previewText", () => {
  it("prefixes the team's replies and notes, and shows the visitor's words as they are", () => {
    expect(previewText({ kind: "outgoing", body: "On its way", createdAt: at })).toBe("You: On its way");
    expect(previewText({ kind: "note", body: "VIP", createdAt: at })).toBe("Note: VIP");
    expect(previewText({ kind: "incoming", body: "Hello", createdAt: at })).toBe("Hello");
  });
  it("puts a multi-line message on one line, and nothing when there is no message", () => {
    expect(previewText({ kind: "incoming", body: "a\n\n b", createdAt: at })).toBe("a b");
    expect(previewText(null)).toBe("");
  });
});

describe("rowTime", () => {
  it("is the last message's time, else the last activity", () => {
    expect(rowTime({ lastMessage: { kind: "incoming", body: "", createdAt: at }, lastMessageAt: "2026-11-26T11:00:00Z" })).toBe(at);
    expect(rowTime({ lastMessage: null, lastMessageAt: "2026-11-26T11:00:00Z" })).toBe("2026-11-26T11:00:00Z");
  });
});
