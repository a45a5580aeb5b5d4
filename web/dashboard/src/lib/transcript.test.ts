import { describe, expect, it } from "vitest";
import type { Message } from "@/api/types";
import { transcript, type TranscriptOptions } from "./transcript";

const ANN = "00000000-0000-0000-0000-00000000000a";

function message(kind: Message["kind"], body: string, minute: number, authorAgentId: string | null = null): Message {
  return { id: `m${minute}`, kind, body, createdAt: `2026-03-12T14:${String(minute).padStart(2, "0")}:00Z`, authorAgentId };
}

const options: TranscriptOptions = {
  includeNotes: false,
  contactName: "Teal Otter",
  agentName: (id) => (id === ANN ? "Ann" : undefined),
  formatTime: (iso) => iso.slice(11, 16),
};

const conversation = [
  message("outgoing", "Hi! How can I help?", 2, ANN),
  message("incoming", "  My order is late  ", 1),
  message("note", "Check with the warehouse", 3, ANN),
  message("outgoing", "On its way.", 4, "00000000-0000-0000-0000-0000000000ff"),
];

describe("transcript", () => {
  it("writes the messages oldest first, signed and timed, without notes", () => {
    expect(transcript(conversation, options)).toBe(
      "Teal Otter, 14:01:\nMy order is late\n\nAnn, 14:02:\nHi! How can I help?\n\nAgent, 14:04:\nOn its way.",
    );
  });
  it("includes notes, marked private, when asked", () => {
    expect(transcript(conversation, { ...options, includeNotes: true })).toContain("Ann (private note), 14:03:\nCheck with the warehouse");
  });
  it("is empty without messages", () => {
    expect(transcript([], options)).toBe("");
  });
  it("keeps the newest messages within the limit and says so", () => {
    const text = transcript(conversation, { ...options, maxChars: 80 });
    expect(text.length).toBeLessThanOrEqual(80);
    expect(text).toBe("[Earlier messages left out]\n\nAgent, 14:04:\nOn its way.");
  });
});
