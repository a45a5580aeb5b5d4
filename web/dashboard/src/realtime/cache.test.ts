import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { keys } from "@/api/keys";
import type { Contact, Conversation, Rating, Ticket } from "@/api/types";
import { applyLoggedHubEvent, type FoldContext, foldContact, foldMessage } from "./cache";
import { toHubEvent } from "./eventLog";
import type { LoggedEvent } from "./events";
import type { ConversationPages, InboxFilter } from "./reducers";

const ctx: FoldContext = { ws: "w", meId: "me", openConversationId: null };
const ida: Contact = { id: "k1", name: "Ida", displayName: "Ida", email: null, claimedEmail: null };

function conversation(id: string, minute: number, overrides: Partial<Conversation> = {}): Conversation {
  const at = `2026-11-23T10:${String(minute).padStart(2, "0")}:00Z`;
  return { id, number: 1, status: "open", contact: ida, channel: "chat", lastMessageAt: at, createdAt: at, updatedAt: at, ...overrides };
}

function withLists(lists: [InboxFilter, Conversation[]][]): QueryClient {
  const qc = new QueryClient();
  for (const [filter, conversations] of lists) {
    qc.setQueryData<ConversationPages>(keys.inbox("w", filter), { pages: [{ conversations, nextCursor: null }], pageParams: [null] });
  }
  return qc;
}

const list = (qc: QueryClient, filter: InboxFilter) =>
  qc.getQueryData<ConversationPages>(keys.inbox("w", filter))?.pages[0]?.conversations.map((c) => [c.id, c.lastMessageAt]);

const message = (conversationId: string, minute: number) => ({
  conversationId,
  message: { id: `m${minute}`, kind: "incoming" as const, body: "hi", authorAgentId: null, createdAt: `2026-11-23T10:${minute}:00Z` },
});

const ALL: InboxFilter = { assignee: "all", status: null };
const MINE: InboxFilter = { assignee: "me", status: null };
const UNASSIGNED: InboxFilter = { assignee: "unassigned", status: null };

describe("folding a message into the inbox lists", () => {
  it("adds a conversation known elsewhere to the lists it belongs in, and leaves the others alone", () => {
    const qc = withLists([
      [ALL, [conversation("a", 1), conversation("b", 2)]],
      [UNASSIGNED, [conversation("b", 2)]],
      [MINE, []],
    ]);
    foldMessage(qc, ctx, message("a", 30));
    expect(list(qc, ALL)).toEqual([
      ["a", "2026-11-23T10:30:00Z"],
      ["b", "2026-11-23T10:02:00Z"],
    ]);
    expect(list(qc, UNASSIGNED)).toEqual([
      ["a", "2026-11-23T10:30:00Z"],
      ["b", "2026-11-23T10:02:00Z"],
    ]);
    expect(list(qc, MINE)).toEqual([]);
    expect(qc.getQueryCache().findAll({ queryKey: keys.conversations("w") }).some((q) => q.state.isInvalidated)).toBe(false);
  });

  it("brings every list holding the conversation its preview and, unless it is on screen, one more unread", () => {
    const qc = withLists([
      [ALL, [conversation("a", 1, { unreadCount: 1 })]],
      [UNASSIGNED, [conversation("a", 1, { unreadCount: 1 })]],
    ]);
    foldMessage(qc, ctx, message("a", 30));
    for (const filter of [ALL, UNASSIGNED]) {
      expect(qc.getQueryData<ConversationPages>(keys.inbox("w", filter))?.pages[0]?.conversations[0]).toMatchObject({
        unreadCount: 2,
        lastMessage: { kind: "incoming", body: "hi", createdAt: "2026-11-23T10:30:00Z" },
      });
    }
    foldMessage(qc, { ...ctx, openConversationId: "a" }, message("a", 31));
    expect(qc.getQueryData<ConversationPages>(keys.inbox("w", ALL))?.pages[0]?.conversations[0]?.unreadCount).toBe(2);
  });

  it("asks again for every list when the conversation is nowhere in this tab", () => {
    const qc = withLists([[ALL, [conversation("a", 1)]]]);
    foldMessage(qc, ctx, message("zzz", 30));
    expect(qc.getQueryState(keys.inbox("w", ALL))?.isInvalidated).toBe(true);
  });

  it("leaves a list that is to be fetched again as it is, still to be fetched", async () => {
    const qc = withLists([[ALL, [conversation("a", 1)]]]);
    await qc.invalidateQueries({ queryKey: keys.conversations("w") });
    const before = qc.getQueryData(keys.inbox("w", ALL));
    applyLoggedHubEvent(qc, ctx, { name: "ConversationCreated", payload: { ...conversation("n", 40), seq: 9 } });
    foldMessage(qc, ctx, message("a", 41));
    expect(qc.getQueryData(keys.inbox("w", ALL))).toBe(before);
    expect(qc.getQueryState(keys.inbox("w", ALL))?.isInvalidated).toBe(true);
  });

  it("folds a conversation event without its seq", () => {
    const qc = withLists([[ALL, []]]);
    applyLoggedHubEvent(qc, ctx, { name: "ConversationCreated", payload: { ...conversation("n", 40), seq: 9 } });
    expect(qc.getQueryData<ConversationPages>(keys.inbox("w", ALL))?.pages[0]?.conversations[0]).not.toHaveProperty("seq");
  });
});

describe("folding a contact's new details", () => {
  it("reaches the conversations and tickets that show the contact", () => {
    const qc = withLists([[ALL, [conversation("a", 1)]]]);
    qc.setQueryData(keys.conversation("w", "a"), conversation("a", 1));
    const ticket: Ticket = { id: "t", number: 1, subject: "s", status: "open", requester: ida, createdAt: "x", updatedAt: "x" };
    qc.setQueryData(keys.ticket("w", "t"), ticket);
    foldContact(qc, ctx, { ...ida, name: "Ida P." });
    expect(qc.getQueryData<ConversationPages>(keys.inbox("w", ALL))?.pages[0]?.conversations[0]?.contact.name).toBe("Ida P.");
    expect(qc.getQueryData<Conversation>(keys.conversation("w", "a"))?.contact.name).toBe("Ida P.");
    expect(qc.getQueryData<Ticket>(keys.ticket("w", "t"))?.requester.name).toBe("Ida P.");
  });
});

describe("folding a customer's rating", () => {
  const rating: Rating = { id: "r1", rating: 5, comment: "Fast, thanks!", resolvedAt: "2026-11-23T10:20:00Z", createdAt: "2026-11-23T10:21:00Z" };
  const RESOLVED: InboxFilter = { assignee: "all", status: "resolved" };

  function seeded(): QueryClient {
    const resolved = conversation("a", 1, { status: "resolved", resolvedAt: rating.resolvedAt, ratings: [] });
    const qc = withLists([
      [ALL, [conversation("b", 2), resolved]],
      [RESOLVED, [resolved]],
      [MINE, []],
    ]);
    qc.setQueryData(keys.conversation("w", "a"), resolved);
    return qc;
  }

  const ratingsIn = (qc: QueryClient, filter: InboxFilter) =>
    qc.getQueryData<ConversationPages>(keys.inbox("w", filter))?.pages[0]?.conversations.map((c) => [c.id, c.ratings?.map((r) => r.id) ?? null]);

  it("adds it to the conversation's record and every list holding it, in place, once", () => {
    const qc = seeded();
    const event = { name: "ConversationRated" as const, payload: { seq: 7, conversationId: "a", contactId: ida.id, rating } };
    applyLoggedHubEvent(qc, ctx, event);
    applyLoggedHubEvent(qc, ctx, event);
    expect(qc.getQueryData<Conversation>(keys.conversation("w", "a"))?.ratings).toEqual([rating]);
    expect(ratingsIn(qc, ALL)).toEqual([
      ["b", null],
      ["a", ["r1"]],
    ]);
    expect(ratingsIn(qc, RESOLVED)).toEqual([["a", ["r1"]]]);
    expect(ratingsIn(qc, MINE)).toEqual([]);
    expect(qc.getQueryCache().findAll({ queryKey: keys.conversations("w") }).some((q) => q.state.isInvalidated)).toBe(false);
  });

  it("reads the same from the event log as live", () => {
    const live = seeded();
    const logged = seeded();
    applyLoggedHubEvent(live, ctx, { name: "ConversationRated", payload: { seq: 7, conversationId: "a", contactId: ida.id, rating } });
    const entry: LoggedEvent = {
      id: "e7",
      seq: 7,
      type: "conversation.rated",
      occurredAt: rating.createdAt,
      actor: { kind: "visitor", id: ida.id },
      data: { conversationId: "a", contactId: ida.id, rating },
    };
    const event = toHubEvent(entry);
    expect(event).not.toBeNull();
    if (event) applyLoggedHubEvent(logged, ctx, event);
    for (const key of [keys.conversation("w", "a"), keys.inbox("w", ALL), keys.inbox("w", RESOLVED)]) {
      expect(logged.getQueryData(key)).toEqual(live.getQueryData(key));
    }
  });
});
