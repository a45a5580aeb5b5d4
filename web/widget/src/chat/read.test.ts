import { describe, expect, it } from "vitest";
import { replyToReport } from "./read";
import type { Message } from "./types";

const msg = (id: string, kind: Message["kind"]): Message => ({
  id,
  kind,
  body: id,
  authorAgentId: kind === "outgoing" ? "ag" : null,
  author: kind === "outgoing" ? { displayName: "Ana", avatarUrl: null } : null,
  createdAt: "2030-01-01T00:00:00Z",
});

describe("read reports", () => {
  const messages = [msg("v1", "incoming"), msg("r1", "outgoing"), msg("v2", "incoming")];

  it("reports the newest agent reply shown in an open, visible chat", () => {
    expect(replyToReport({ panelOpen: true, visible: true, messages, reported: null })).toBe("r1");
    expect(replyToReport({ panelOpen: true, visible: true, messages: [...messages, msg("r2", "outgoing")], reported: "r1" })).toBe("r2");
  });

  it("says nothing twice, nor for the visitor's own messages", () => {
    expect(replyToReport({ panelOpen: true, visible: true, messages, reported: "r1" })).toBeNull();
    expect(replyToReport({ panelOpen: true, visible: true, messages: [msg("v1", "incoming")], reported: null })).toBeNull();
    expect(replyToReport({ panelOpen: true, visible: true, messages: [], reported: null })).toBeNull();
  });

  it("says nothing while the chat is closed or its tab hidden", () => {
    expect(replyToReport({ panelOpen: false, visible: true, messages, reported: null })).toBeNull();
    expect(replyToReport({ panelOpen: true, visible: false, messages, reported: null })).toBeNull();
  });
});
