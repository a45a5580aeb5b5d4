import { describe, expect, it } from "vitest";
import type { Message } from "@/api/types";
import { type ActivityEvent, activitySentence, buildThread } from "./thread";

const msg = (id: string, kind: Message["kind"], at: string, authorAgentId: string | null = null): Message => ({
  id,
  kind,
  body: id,
  authorAgentId,
  createdAt: `2026-11-26T10:${at}:00Z`,
});

const event = (id: string, at: string, type: string, data: object, actor: ActivityEvent["actor"] = { kind: "agent", id: "olivia" }, seq = 1): ActivityEvent =>
  ({ id, seq, type, occurredAt: `2026-11-26T10:${at}:00Z`, actor, data }) as unknown as ActivityEvent;

const names = (id: string | null | undefined) => ({ olivia: "Olivia", tom: "Tom" })[id as "olivia" | "tom"] ?? "An agent";

describe("buildThread", () => {
  it("groups consecutive messages of one author and splits on another author", () => {
    const thread = buildThread([msg("a", "incoming", "00"), msg("b", "incoming", "01"), msg("c", "outgoing", "02", "tom"), msg("d", "outgoing", "03", "olivia")], []);
    expect(thread.map((i) => (i.kind === "messages" ? i.messages.map((m) => m.id).join("") : "-"))).toEqual(["ab", "c", "d"]);
  });
  it("keeps a note apart from the same agent's replies", () => {
    const thread = buildThread([msg("a", "outgoing", "00", "tom"), msg("b", "note", "01", "tom")], []);
    expect(thread).toHaveLength(2);
  });
  it("starts a new group after a long pause", () => {
    const thread = buildThread([msg("a", "incoming", "00"), msg("b", "incoming", "30")], []);
    expect(thread).toHaveLength(2);
  });
  it("merges activity in time order, splitting a group, with the rest at the end", () => {
    const thread = buildThread(
      [msg("a", "incoming", "00"), msg("b", "incoming", "02")],
      [event("late", "05", "conversation.updated", { change: "status", status: "resolved" }, undefined, 2), event("mid", "01", "conversation.updated", { change: "assignee", assigneeId: "tom" })],
    );
    expect(thread.map((i) => i.key)).toEqual(["group-a", "event-mid", "group-b", "event-late"]);
  });
  it("puts an event at a message's instant after it", () => {
    const thread = buildThread([msg("a", "incoming", "00")], [event("same", "00", "conversation.created", {}, { kind: "visitor", id: "c" })]);
    expect(thread.map((i) => i.key)).toEqual(["group-a", "event-same"]);
  });
});

describe("activitySentence", () => {
  it("says who assigned whom", () => {
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "assignee", assigneeId: "tom" }), names)).toBe("Olivia assigned Tom");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "assignee", assigneeId: "tom" }), names, "tom")).toBe("Olivia assigned you");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "assignee", assigneeId: "olivia" }), names)).toBe("Olivia took the conversation");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "assignee", assigneeId: null }), names)).toBe("Olivia unassigned the conversation");
  });
  it("says what happened to the status and priority", () => {
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "status", status: "resolved" }), names)).toBe("Olivia resolved the conversation");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "status", status: "open" }), names)).toBe("Olivia reopened the conversation");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "priority", priority: "high" }), names)).toBe("Olivia set the priority to high");
    expect(
      activitySentence(event("1", "00", "conversation.updated", { change: "labels", labels: [{ id: "l1", name: "Billing", color: "#2563eb" }, { id: "l2", name: "VIP", color: "#7c3aed" }] }), names),
    ).toBe("Olivia set the labels to Billing, VIP");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "labels", labels: [] }), names)).toBe("Olivia removed the labels");
    const visitor: ActivityEvent["actor"] = { kind: "visitor", id: "c1" };
    const signedIn = event("1", "00", "conversation.updated", { change: "contact", contact: { name: "Eve Adams", email: null } }, visitor);
    expect(activitySentence(signedIn, names)).toBe("The visitor signed in as Eve Adams");
    const unnamed = event("1", "00", "conversation.updated", { change: "contact", contact: { name: null, email: null, claimedEmail: "eve@example.org" } }, visitor);
    expect(activitySentence(unnamed, names)).toBe("The visitor signed in as eve@example.org");
  });
  it("names tickets and starts, and other actors", () => {
    expect(activitySentence(event("1", "00", "ticket.created", { number: 12 }), names)).toBe("Olivia created ticket #12");
    expect(activitySentence(event("1", "00", "conversation.created", {}, { kind: "visitor", id: "c" }), names)).toBe("The visitor started the conversation");
    expect(activitySentence(event("1", "00", "conversation.updated", { change: "status", status: "resolved" }, { kind: "apiKey", id: "k" }), names)).toBe(
      "An integration resolved the conversation",
    );
  });
  it("says how the customer rated the resolution, with their comment", () => {
    const visitor = { kind: "visitor", id: "k1" } as const;
    const rated = (rating: object) => event("1", "00", "conversation.rated", { conversationId: "c", contactId: "k1", rating }, visitor);
    expect(activitySentence(rated({ id: "r", rating: 4, comment: "Fast, thanks!" }), names)).toBe("The customer rated 4 of 5: “Fast, thanks!”");
    expect(activitySentence(rated({ id: "r", rating: 4, comment: null }), names)).toBe("The customer rated 4 of 5");
    expect(activitySentence(rated({ id: "r" }), names)).toBeNull();
  });
  it("describes nothing it does not know", () => {
    expect(activitySentence(event("1", "00", "message.created", {}), names)).toBeNull();
  });
});
