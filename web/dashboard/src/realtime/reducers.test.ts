import { TYPING_TTL_MS } from "@supportdesk/shared/typing";
import { describe, expect, it } from "vitest";
import type { Agent, AgentList, CommentList, Conversation, Profile, Rating, Ticket } from "@/api/types";
import type { MessageCreated } from "./events";
import {
  applyMessageToList,
  applyRatingToList,
  appendComment,
  appendMessage,
  applyPresence,
  applyTyping,
  belongsTo,
  type ConversationPages,
  markListRead,
  mergeProfile,
  type MessagePages,
  replaceContactIn,
  replaceContactInList,
  replaceConversation,
  replaceRequesterInList,
  replaceTicket,
  ticketBelongsTo,
  type TicketPages,
  touchConversation,
  typingEndedByMessage,
  typists,
  upsertAgent,
  upsertConversation,
  upsertTicket,
  withMessage,
  withRating,
} from "./reducers";

function conversation(id: string, overrides: Partial<Conversation> = {}): Conversation {
  return {
    id,
    number: 1,
    subject: null,
    status: "open",
    priority: null,
    assigneeId: null,
    contact: { id: `contact-${id}`, name: "Ida", displayName: "Ida", email: null, claimedEmail: null },
    channel: "chat",
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

  it("know which conversations belong to a label's and a contact's lists", () => {
    const billing = { id: "l1", name: "Billing", color: "#2563eb" };
    const labelled = conversation("a", { labels: [billing] });
    expect(belongsTo(labelled, { ...all, labelId: "l1" }, "me")).toBe(true);
    expect(belongsTo(conversation("b"), { ...all, labelId: "l1" }, "me")).toBe(false);
    expect(belongsTo(labelled, { ...all, labelId: null }, "me")).toBe(true);
    expect(belongsTo(labelled, { ...all, contactId: "contact-a" }, "me")).toBe(true);
    expect(belongsTo(labelled, { ...all, contactId: "contact-b" }, "me")).toBe(false);
  });

  it("know which conversations belong to a channel's, a priority's and the unread list", () => {
    const urgentEmail = conversation("a", { channel: "email", priority: "urgent" });
    expect(belongsTo(urgentEmail, { ...all, channel: "email", priority: "urgent" }, "me")).toBe(true);
    expect(belongsTo(urgentEmail, { ...all, channel: "chat" }, "me")).toBe(false);
    expect(belongsTo(urgentEmail, { ...all, priority: "low" }, "me")).toBe(false);
    expect(belongsTo(conversation("b"), { ...all, priority: "urgent" }, "me")).toBe(false);
    // An event carries no unread count: it may well be unread. A read answer of 0 is not.
    expect(belongsTo(conversation("c"), { ...all, unread: true }, "me")).toBe(true);
    expect(belongsTo(conversation("c", { unreadCount: 2 }), { ...all, unread: true }, "me")).toBe(true);
    expect(belongsTo(conversation("c", { unreadCount: 0 }), { ...all, unread: true }, "me")).toBe(false);
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

  it("append a message's files with it, links and all, and leave a message without files as it was", () => {
    const shot = {
      id: "f1",
      name: "screenshot.png",
      contentType: "image/png",
      size: 2048,
      width: 640,
      height: 400,
      hasThumbnail: true,
      url: "/files/w1/f1/original?expires=1&signature=a",
      thumbnailUrl: "/files/w1/f1/thumbnail?expires=1&signature=b",
      expiresAt: "2026-11-23T10:10:00Z",
    };
    const event = messageEvent("m3", "outgoing");
    const withFile = appendMessage(data, { ...event, message: { ...event.message, body: "", attachments: [shot] } });
    const appended = withFile?.pages[0]?.messages[1];
    expect(appended).toMatchObject({ id: "m3", body: "", attachments: [shot] });
    expect(appended).not.toHaveProperty("author");
    // From the event log: the file's facts without links, folded the same way.
    const facts = { id: shot.id, name: shot.name, contentType: shot.contentType, size: shot.size, width: 640, height: 400, hasThumbnail: true };
    const logged = appendMessage(data, { ...event, message: { ...event.message, attachments: [facts] } });
    expect(logged?.pages[0]?.messages[1]?.attachments).toEqual([facts]);
    expect(appendMessage(data, { ...event, message: { ...event.message, attachments: [] } })?.pages[0]?.messages[1]).not.toHaveProperty(
      "attachments",
    );
  });

  it("keep an email's details, so a live email shows as one", () => {
    const email = {
      from: { address: "carla@example.com", name: "Carla" },
      to: [{ address: "support@acme.test", name: null }],
      cc: [],
      subject: "Printer on fire",
      html: "<p>It smokes.</p>",
      quoted: null,
      dmarcFailed: false,
      senderChecks: null,
      delivery: null,
    };
    const event = messageEvent("m4", "incoming");
    const next = appendMessage(data, { ...event, message: { ...event.message, email } });
    expect(next?.pages[0]?.messages[1]?.email).toEqual(email);
    expect(appendMessage(data, messageEvent("m5", "outgoing"))?.pages[0]?.messages[1]).not.toHaveProperty("email");
  });

  it("leave a message to later pages still to load", () => {
    const partial = { ...data, pages: [{ ...data.pages[0]!, nextCursor: "more" }] };
    expect(appendMessage(partial, messageEvent("m2", "incoming"))).toBe(partial);
  });
});

describe("ratings", () => {
  const rating = (id: string, score: number, minute: number): Rating => ({
    id,
    rating: score,
    comment: score === 5 ? "Fast, thanks!" : null,
    resolvedAt: `2026-11-23T10:${minute}:00Z`,
    createdAt: `2026-11-23T10:${minute + 1}:00Z`,
  });

  it("add a rating after the earlier ones, once", () => {
    const first = withRating(conversation("a"), rating("r1", 2, 10));
    expect(first.ratings?.map((r) => r.id)).toEqual(["r1"]);
    const second = withRating(first, rating("r2", 5, 20));
    expect(second.ratings?.map((r) => [r.id, r.rating])).toEqual([
      ["r1", 2],
      ["r2", 5],
    ]);
    expect(withRating(second, rating("r2", 5, 20))).toBe(second);
    const commented = withRating(second, { ...rating("r2", 5, 20), comment: "Thanks!" });
    expect(commented.ratings?.map((r) => [r.id, r.comment])).toEqual([
      ["r1", rating("r1", 2, 10).comment],
      ["r2", "Thanks!"],
    ]);
  });

  it("reach the conversation's row in a list, wherever it is, and leave the order and other rows alone", () => {
    const other = conversation("b");
    const data = pages([other], [conversation("a", { ratings: [] })]);
    const rated = applyRatingToList(data, "a", rating("r1", 5, 10));
    expect(ids(rated)).toEqual([["b"], ["a"]]);
    expect(rated?.pages[1]?.conversations[0]?.ratings).toEqual([rating("r1", 5, 10)]);
    expect(rated?.pages[0]?.conversations[0]).toBe(other);
    expect(applyRatingToList(rated, "a", rating("r1", 5, 10))).toBe(rated);
    expect(applyRatingToList(data, "zzz", rating("r9", 1, 10))).toBe(data);
    expect(applyRatingToList(undefined, "a", rating("r1", 5, 10))).toBeUndefined();
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

describe("inbox order", () => {
  it("breaks ties in activity by id, descending, as the API does", () => {
    const same = "2026-11-23T10:00:00Z";
    const data = pages([conversation("a", { lastMessageAt: same })]);
    expect(ids(upsertConversation(data, conversation("b", { lastMessageAt: same }), all, "me"))).toEqual([["b", "a"]]);
  });
});

describe("contacts", () => {
  const renamed = { id: "contact-a", name: "Ida Pfeiffer", displayName: "Ida Pfeiffer", email: "ida@example.org", claimedEmail: null };

  it("show a contact's new details in every conversation with them, and nothing else changes", () => {
    const data = pages([conversation("a"), conversation("b")]);
    const next = replaceContactInList(data, renamed);
    expect(next?.pages[0]?.conversations.map((c) => c.contact.name)).toEqual(["Ida Pfeiffer", "Ida"]);
    expect(next?.pages[0]?.conversations[1]).toBe(data.pages[0]?.conversations[1]);
    expect(replaceContactInList(next, renamed)).toBe(next);
    expect(replaceContactInList(data, { ...renamed, id: "nobody" })).toBe(data);
    expect(replaceContactIn(conversation("a"), renamed).contact).toEqual(renamed);
  });
});

function ticket(id: string, number: number, overrides: Partial<Ticket> = {}): Ticket {
  return {
    id,
    number,
    subject: `Ticket ${number}`,
    status: "open",
    requester: { id: "k1", name: "Ida", displayName: "Ida", email: "ida@example.org", claimedEmail: null },
    createdAt: "2026-11-23T10:00:00Z",
    updatedAt: "2026-11-23T10:00:00Z",
    ...overrides,
  };
}

function ticketPages(...lists: Ticket[][]): TicketPages {
  return {
    pages: lists.map((tickets, i) => ({ tickets, nextCursor: i < lists.length - 1 ? `t${i}` : null })),
    pageParams: lists.map((_, i) => (i === 0 ? null : `t${i - 1}`)),
  };
}

function ticketIds(data: TicketPages | undefined): string[][] {
  return data?.pages.map((p) => p.tickets.map((t) => t.id)) ?? [];
}

describe("tickets", () => {
  const any = { status: null, assignee: null };

  it("know which tickets a filter shows", () => {
    const mine = ticket("t", 1, { assigneeId: "me" });
    expect(ticketBelongsTo(mine, { status: null, assignee: "me" }, "me")).toBe(true);
    expect(ticketBelongsTo(mine, { status: null, assignee: "unassigned" }, "me")).toBe(false);
    expect(ticketBelongsTo(mine, { status: null, assignee: "me" }, null)).toBe(false);
    expect(ticketBelongsTo(mine, { status: null, assignee: "other" }, "me")).toBe(false);
    expect(ticketBelongsTo(ticket("u", 2), { status: "open", assignee: "unassigned" }, "me")).toBe(true);
    expect(ticketBelongsTo(ticket("u", 2), { status: "resolved", assignee: null }, "me")).toBe(false);
  });

  it("put a new ticket first (newest number), once", () => {
    const data = ticketPages([ticket("t2", 2), ticket("t1", 1)]);
    const next = upsertTicket(data, ticket("t3", 3), any, "me");
    expect(ticketIds(next)).toEqual([["t3", "t2", "t1"]]);
    expect(ticketIds(upsertTicket(next, ticket("t3", 3), any, "me"))).toEqual([["t3", "t2", "t1"]]);
    expect(ticketIds(upsertTicket(ticketPages([]), ticket("t1", 1), any, "me"))).toEqual([["t1"]]);
  });

  it("replace a ticket in place, drop one that stops belonging, and ignore older updates", () => {
    const data = ticketPages([ticket("t2", 2), ticket("t1", 1)]);
    const later = "2026-11-23T10:05:00Z";
    const replaced = upsertTicket(data, ticket("t1", 1, { subject: "New", updatedAt: later }), any, "me");
    expect(replaced?.pages[0]?.tickets[1]?.subject).toBe("New");
    const open = { status: "open" as const, assignee: null };
    expect(ticketIds(upsertTicket(data, ticket("t2", 2, { status: "resolved", updatedAt: later }), open, "me"))).toEqual([["t1"]]);
    expect(upsertTicket(replaced, ticket("t1", 1), any, "me")).toBe(replaced);
    expect(replaceTicket(replaced?.pages[0]?.tickets[1], ticket("t1", 1))?.subject).toBe("New");
  });

  it("add a ticket that now belongs where it sorts, unless beyond the loaded pages", () => {
    const data = ticketPages([ticket("t9", 9), ticket("t7", 7)], [ticket("t5", 5)]);
    expect(ticketIds(upsertTicket(data, ticket("t6", 6), any, "me"))).toEqual([["t9", "t7"], ["t6", "t5"]]);
    expect(ticketIds(upsertTicket(data, ticket("t8", 8), any, "me"))).toEqual([["t9", "t8", "t7"], ["t5"]]);
    const partial = ticketPages([ticket("t9", 9)], [ticket("t7", 7)], []);
    partial.pages[2] = { tickets: [ticket("t5", 5)], nextCursor: "more" };
    expect(upsertTicket(partial, ticket("t2", 2), any, "me")).toBe(partial);
    expect(upsertTicket(data, ticket("t4", 4, { status: "closed" }), { status: "open", assignee: null }, "me")).toBe(data);
  });

  it("show a requester's new details", () => {
    const data = ticketPages([ticket("t1", 1)]);
    const next = replaceRequesterInList(data, { id: "k1", name: "Ida P.", displayName: "Ida P.", email: "ida@example.org", claimedEmail: null });
    expect(next?.pages[0]?.tickets[0]?.requester.name).toBe("Ida P.");
    expect(replaceRequesterInList(data, { id: "k9", name: "X", displayName: "X" })).toBe(data);
  });

  it("append a new comment once, when all are loaded", () => {
    const comments: CommentList = { comments: [{ id: "m1", body: "a", authorAgentId: "me", createdAt: "2026-11-23T10:00:00Z" }], nextCursor: null };
    const comment = { id: "m2", body: "b", authorAgentId: "me", createdAt: "2026-11-23T10:01:00Z" };
    const next = appendComment(comments, comment);
    expect(next?.comments.map((c) => c.id)).toEqual(["m1", "m2"]);
    expect(appendComment(next, comment)).toBe(next);
    const partial = { ...comments, nextCursor: "more" };
    expect(appendComment(partial, comment)).toBe(partial);
  });
});

describe("agents", () => {
  function agent(id: string, joined: string, overrides: Partial<Agent> = {}): Agent {
    return {
      id,
      userId: `u-${id}`,
      email: `${id}@example.com`,
      fullName: id,
      displayName: id,
      role: "agent",
      status: "active",
      presence: "offline",
      joinedAt: joined,
      ...overrides,
    };
  }
  const team: AgentList = { agents: [agent("a1", "2026-11-01T00:00:00Z"), agent("a3", "2026-11-03T00:00:00Z")], nextCursor: null };

  it("replace an agent in place, and take a deactivated one off the active list only", () => {
    const renamed = agent("a1", "2026-11-01T00:00:00Z", { displayName: "Ann" });
    expect(upsertAgent(team, renamed, "active")?.agents.map((a) => a.displayName)).toEqual(["Ann", "a3"]);
    const gone = agent("a3", "2026-11-03T00:00:00Z", { status: "deactivated" });
    expect(upsertAgent(team, gone, "active")?.agents.map((a) => a.id)).toEqual(["a1"]);
    expect(upsertAgent(team, gone, "all")?.agents.map((a) => a.status)).toEqual(["active", "deactivated"]);
  });

  it("add an agent where they joined, unless they do not belong", () => {
    const back = agent("a2", "2026-11-02T00:00:00Z");
    expect(upsertAgent(team, back, "active")?.agents.map((a) => a.id)).toEqual(["a1", "a2", "a3"]);
    expect(upsertAgent(team, { ...back, status: "deactivated" }, "active")).toBe(team);
  });

  it("refresh the signed-in agent's profile, keeping its preferences", () => {
    const profile: Profile = { ...agent("a1", "2026-11-01T00:00:00Z"), notificationPreferences: { desktop: false, emailOnAssignment: true, emailOnContactReply: true, emailOnNewConversation: false, emailOnMention: true, sound: false }, sendWithEnter: true };
    const next = mergeProfile(profile, agent("a1", "2026-11-01T00:00:00Z", { displayName: "Ann" }));
    expect(next).toMatchObject({ displayName: "Ann", notificationPreferences: { desktop: false } });
    expect(mergeProfile(profile, agent("a3", "2026-11-03T00:00:00Z"))).toBe(profile);
  });
});

describe("inbox rows and new messages", () => {
  it("open a new chat from an event as one unread message, and its own message does not count twice", () => {
    const opened = conversation("new", {
      lastMessageAt: "2026-11-23T10:05:00Z",
      lastMessage: { kind: "incoming", body: "body m1", createdAt: "2026-11-23T10:05:00Z" },
    });
    const shown = upsertConversation(pages([conversation("b")]), opened, all, "me");
    expect(shown?.pages[0]?.conversations[0]).toMatchObject({ id: "new", unreadCount: 1 });
    const itsMessage = { ...messageEvent("m1", "incoming"), conversationId: "new" };
    expect(applyMessageToList(shown, itsMessage, null)).toBe(shown);
    // A later one counts.
    const later = { ...messageEvent("m2", "incoming", "2026-11-23T10:06:00Z"), conversationId: "new" };
    expect(applyMessageToList(shown, later, null)?.pages[0]?.conversations[0]?.unreadCount).toBe(2);
    // An agent-started one opens read.
    const started = conversation("mine", { lastMessage: { kind: "outgoing", body: "hi", createdAt: "2026-11-23T10:00:00Z" } });
    expect(upsertConversation(pages([]), started, all, "me")?.pages[0]?.conversations[0]?.unreadCount).toBe(0);
  });
  it("take the message's preview and time, and count an incoming message in a conversation not on screen", () => {
    const row = conversation("c1", { unreadCount: 2 });
    const next = withMessage(row, messageEvent("m1", "incoming"), null);
    expect(next).toMatchObject({ lastMessageAt: "2026-11-23T10:05:00Z", unreadCount: 3, lastMessage: { kind: "incoming", body: "body m1" } });
  });
  it("count nothing for the conversation on screen, or for the team's own replies and notes", () => {
    const row = conversation("c1", { unreadCount: 0 });
    expect(withMessage(row, messageEvent("m1", "incoming"), "c1").unreadCount).toBe(0);
    expect(withMessage(row, messageEvent("m2", "outgoing"), null).unreadCount).toBe(0);
    expect(withMessage(row, messageEvent("m3", "note"), null).lastMessage?.kind).toBe("note");
  });
  it("ignore a message the row already knows (fetched after it)", () => {
    const row = conversation("c1", { lastMessageAt: "2026-11-23T10:05:00Z", unreadCount: 1 });
    expect(withMessage(row, messageEvent("m1", "incoming"), null)).toBe(row);
  });
  it("cut the preview to 200 characters, as the API does", () => {
    const long = { ...messageEvent("m1", "incoming"), message: { ...messageEvent("m1", "incoming").message, body: "é".repeat(300) } };
    expect(withMessage(conversation("c1"), long, null).lastMessage?.body).toHaveLength(200);
  });
  it("move the row to the top of a list holding it, and leave other lists alone", () => {
    const data = pages([conversation("b", { lastMessageAt: "2026-11-23T10:01:00Z" }), conversation("c1")]);
    const next = applyMessageToList(data, messageEvent("m1", "incoming"), null);
    expect(ids(next)).toEqual([["c1", "b"]]);
    expect(next?.pages[0]?.conversations[0]?.unreadCount).toBe(1);
    const other = pages([conversation("b")]);
    expect(applyMessageToList(other, messageEvent("m1", "incoming"), null)).toBe(other);
  });
  it("are read: unread back to 0, the same list when nothing was unread", () => {
    const data = pages([conversation("c1", { unreadCount: 4 })]);
    expect(markListRead(data, "c1")?.pages[0]?.conversations[0]?.unreadCount).toBe(0);
    const read = pages([conversation("c1", { unreadCount: 0 })]);
    expect(markListRead(read, "c1")).toBe(read);
  });
  it("keep their unread count and preview through an update event that carries neither", () => {
    const known = conversation("c1", { unreadCount: 3, lastMessage: { kind: "incoming", body: "hi", createdAt: "2026-11-23T10:00:00Z" } });
    const data = pages([known]);
    const update = conversation("c1", { status: "pending", updatedAt: "2026-11-23T10:06:00Z" });
    const next = upsertConversation(data, update, all, "me")?.pages[0]?.conversations[0];
    expect(next).toMatchObject({ status: "pending", unreadCount: 3, lastMessage: { body: "hi" } });
  });
});
