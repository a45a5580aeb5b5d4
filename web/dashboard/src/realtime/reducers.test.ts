import { TYPING_TTL_MS } from "@supportdesk/shared/typing";
import { describe, expect, it } from "vitest";
import type { AgentList, Conversation } from "@/api/types";
import type { MessageCreated } from "./events";
import {
  appendMessage,
  applyPresence,
  applyPreview,
  applyTyping,
  belongsTo,
  type ConversationPages,
  markRead,
  markUnread,
  type MessagePages,
  replaceConversation,
  touchConversation,
  typingEndedByMessage,
  typists,
  upsertConversation,
} from "./reducers";

function conversation(id: string, overrides: Partial<Conversation> = {}): Conversation {
  return {
    id,
    number: 1,
    subject: null,
    status: "open",
    priority: null,
    assigneeId: null,
    contact: { id: `contact-${id}`, name: "Ida", email: null, claimedEmail: null },
    lastMessageAt: "2026-11-23T10:00:00Z",
    createdAt: "2026-11-23T10:00:00Z",
    updatedAt: "2026-11-23T10:00:00Z",
    ...overrides,
  };
}

function pages(...lists: Conversation[][]): ConversationPages {
  return {
    pages: lists.map((conversations, i) => ({ conversations, nextCursor: i < lists.length - 1 ? `c${i}` : null })),
    pageParams: lists.map((_, i) => (i === 0 ? null : `c${i - 1}`)),
  };
}

function ids(data: ConversationPages | undefined): string[][] {
  return data?.pages.map((p) => p.conversations.map((c) => c.id)) ?? [];
}

function messageEvent(id: string, kind: "incoming" | "outgoing" | "note", at = "2026-11-23T10:05:00Z"): MessageCreated {
  return {
    conversationId: "c1",
    message: { id, kind, body: `body ${id}`, authorAgentId: kind === "incoming" ? null : "me", createdAt: at, author: null },
  };
}

const all = { assignee: "all", status: null } as const;

describe("inbox lists", () => {
  it("know which conversations belong to which tab and status", () => {
    const mine = conversation("a", { assigneeId: "me" });
    expect(belongsTo(mine, { assignee: "me", status: null }, "me")).toBe(true);
    expect(belongsTo(mine, { assignee: "unassigned", status: null }, "me")).toBe(false);
    expect(belongsTo(conversation("b"), { assignee: "unassigned", status: "open" }, "me")).toBe(true);
    expect(belongsTo(conversation("b"), { assignee: "unassigned", status: "resolved" }, "me")).toBe(false);
    expect(belongsTo(mine, { assignee: "me", status: null }, null)).toBe(false);
  });

  it("put a new conversation first, once", () => {
    const data = pages([conversation("old")]);
    const fresh = conversation("new", { lastMessageAt: "2026-11-23T11:00:00Z", updatedAt: "2026-11-23T11:00:00Z" });
    const next = upsertConversation(data, fresh, all, "me");
    expect(ids(next)).toEqual([["new", "old"]]);
    expect(upsertConversation(next, fresh, all, "me")?.pages[0]?.conversations).toHaveLength(2);
  });

  it("leave out conversations that do not belong and drop those that stop belonging", () => {
    const data = pages([conversation("a")], [conversation("b")]);
    const unassigned = { assignee: "unassigned", status: null } as const;
    expect(upsertConversation(data, conversation("x", { assigneeId: "other" }), unassigned, "me")).toBe(data);
    const assigned = conversation("b", { assigneeId: "other", updatedAt: "2026-11-23T10:01:00Z" });
    expect(ids(upsertConversation(data, assigned, unassigned, "me"))).toEqual([["a"], []]);
  });

  it("ignore an update older than the cached record", () => {
    const data = pages([conversation("a", { updatedAt: "2026-11-23T10:10:00Z", status: "pending" })]);
    expect(upsertConversation(data, conversation("a"), all, "me")).toBe(data);
    expect(replaceConversation(data.pages[0]?.conversations[0], conversation("a"))?.status).toBe("pending");
  });

  it("move a conversation with a new message to the top", () => {
    const data = pages([conversation("a", { lastMessageAt: "2026-11-23T10:02:00Z" }), conversation("b")]);
    expect(ids(touchConversation(data, "b", "2026-11-23T10:05:00Z"))).toEqual([["b", "a"]]);
    expect(touchConversation(data, "zzz", "2026-11-23T10:05:00Z")).toBe(data);
    expect(touchConversation(undefined, "b", "2026-11-23T10:05:00Z")).toBeUndefined();
  });
});

describe("messages", () => {
  const data: MessagePages = {
    pages: [{ messages: [{ id: "m1", kind: "incoming", body: "hi", authorAgentId: null, createdAt: "2026-11-23T10:00:00Z" }], nextCursor: null }],
    pageParams: [null],
  };

  it("append a new message once, without the event's author", () => {
    const next = appendMessage(data, messageEvent("m2", "outgoing"));
    expect(next?.pages[0]?.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(next?.pages[0]?.messages[1]).not.toHaveProperty("author");
    expect(appendMessage(next, messageEvent("m2", "outgoing"))).toBe(next);
  });

  it("leave a message to later pages still to load", () => {
    const partial = { ...data, pages: [{ ...data.pages[0]!, nextCursor: "more" }] };
    expect(appendMessage(partial, messageEvent("m2", "incoming"))).toBe(partial);
  });
});

describe("presence", () => {
  const team: AgentList = {
    agents: [
      {
        id: "a1",
        userId: "u1",
        email: "a@example.com",
        fullName: "Ann",
        displayName: "Ann",
        role: "admin",
        status: "active",
        presence: "offline",
        joinedAt: "2026-11-23T10:00:00Z",
      },
    ],
  };

  it("updates the agent, and nothing when unchanged or unknown", () => {
    expect(applyPresence(team, { agentId: "a1", presence: "online" })?.agents[0]?.presence).toBe("online");
    expect(applyPresence(team, { agentId: "a1", presence: "offline" })).toBe(team);
    expect(applyPresence(team, { agentId: "zz", presence: "online" })).toBe(team);
  });
});

describe("typing", () => {
  it("shows who types, expires silent typists and hides the agent's own typing", () => {
    let state = applyTyping({}, { conversationId: "c1", isTyping: true, by: "visitor" }, 1000);
    state = applyTyping(state, { conversationId: "c1", isTyping: true, by: "agent", agentId: "me", displayName: "Me" }, 1000);
    state = applyTyping(state, { conversationId: "c1", isTyping: true, by: "agent", agentId: "a2", displayName: "Bo" }, 1000);
    expect(typists(state, "c1", 2000, "me")).toEqual(["The visitor", "Bo"]);
    expect(typists(state, "c1", 1000 + TYPING_TTL_MS, "me")).toEqual([]);
    state = applyTyping(state, { conversationId: "c1", isTyping: false, by: "agent", agentId: "a2" }, 3000);
    expect(typists(state, "c1", 3000, "me")).toEqual(["The visitor"]);
  });

  it("ends when the typist's message arrives", () => {
    const state = applyTyping({}, { conversationId: "c1", isTyping: true, by: "visitor" }, 1000);
    expect(typists(typingEndedByMessage(state, messageEvent("m9", "incoming")), "c1", 1500, null)).toEqual([]);
  });
});

describe("unread markers and previews", () => {
  it("mark visitors' messages in conversations not open, and clear on opening", () => {
    const unread = markUnread({}, messageEvent("m1", "incoming"), null);
    expect(unread).toEqual({ c1: true });
    expect(markUnread({}, messageEvent("m1", "incoming"), "c1")).toEqual({});
    expect(markUnread({}, messageEvent("m1", "outgoing"), null)).toEqual({});
    expect(markRead(unread, "c1")).toEqual({});
  });

  it("keep the latest message per conversation", () => {
    const first = applyPreview({}, messageEvent("m2", "incoming", "2026-11-23T10:05:00Z"));
    expect(applyPreview(first, messageEvent("m1", "incoming", "2026-11-23T10:00:00Z"))).toBe(first);
    expect(first.c1?.body).toBe("body m2");
  });
});
