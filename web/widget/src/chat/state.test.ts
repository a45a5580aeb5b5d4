import { TYPING_TTL_MS } from "@supportdesk/shared/typing";
import { describe, expect, it } from "vitest";
import type { WidgetSession } from "@/loader/protocol";
import { awayNotice, initialState, mergeMessages, reducer, sentMessage, typicalReply, typingText, type ChatState } from "./state";
import type { Conversation, Message } from "./types";

const session = (token = "t1", agentsOnline = true): WidgetSession => ({
  token,
  visitorId: "v1",
  expiresAt: "2030-01-01T01:00:00Z",
  workspace: { name: "Acme", branding: { name: null, color: null, logoUrl: null, widgetGreeting: null } },
  agentsOnline,
});

const msg = (id: string, at: string, kind: Message["kind"] = "incoming", agent: string | null = null): Message => ({
  id,
  kind,
  body: `body ${id}`,
  authorAgentId: agent,
  author: agent ? { displayName: `Agent ${agent}`, avatarUrl: null } : null,
  createdAt: at,
});

const conversation = (id: string, createdAt: string, messages: Message[]): Conversation => ({
  id,
  number: 7,
  status: "open",
  createdAt,
  resolvedAt: null,
  rating: null,
  askForRating: false,
  messages,
});

const RESOLVED_AT = "2030-01-01T00:10:00Z";

/** c1, resolved at RESOLVED_AT after the visitor's m1 and the agent's r1. */
const resolved = (askForRating = true, rating: Conversation["rating"] = null): Conversation => ({
  ...conversation("c1", "2030-01-01T00:00:00Z", [
    msg("m1", "2030-01-01T00:00:01Z"),
    msg("r1", "2030-01-01T00:00:02Z", "outgoing", "ag"),
  ]),
  status: "resolved",
  resolvedAt: RESOLVED_AT,
  rating,
  askForRating,
});

const stored = (rating: number, comment: string | null) => ({
  id: "rt1",
  rating,
  comment,
  resolvedAt: RESOLVED_AT,
  createdAt: "2030-01-01T00:11:00Z",
});

const started = (): ChatState => reducer(initialState, { type: "session", reason: "new", session: session() });

describe("messages", () => {
  it("merges by id and orders by createdAt, then id", () => {
    const a = msg("a", "2030-01-01T00:00:02Z");
    const b = msg("b", "2030-01-01T00:00:01Z");
    const c = msg("c", "2030-01-01T00:00:01Z");
    expect(mergeMessages([a, c], [b, a]).map((m) => m.id)).toEqual(["b", "c", "a"]);
  });

  it("dedupes the echo of the visitor's own message", () => {
    let s = started();
    const m = msg("m1", "2030-01-01T00:00:01Z");
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: m } });
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: m } });
    expect(s.messages).toEqual([m]);
    expect(s.conversation).toMatchObject({ id: "c1", status: "open" });
  });

  it("keeps a message's files, the newer copy's links winning", () => {
    const file = {
      id: "f1",
      name: "screenshot.png",
      contentType: "image/png",
      size: 2048,
      width: 640,
      height: 400,
      hasThumbnail: true,
      url: "/files/w/f1/original?expires=1&signature=a",
      thumbnailUrl: "/files/w/f1/thumbnail?expires=1&signature=b",
      expiresAt: "2030-01-01T00:05:00Z",
    };
    const reply = { ...msg("m1", "2030-01-01T00:00:01Z", "outgoing", "ag"), body: "", attachments: [file] };
    let s = reducer(started(), { type: "messageCreated", event: { conversationId: "c1", message: reply } });
    expect(s.messages[0]?.attachments).toEqual([file]);
    const later = { ...file, url: "/files/w/f1/original?expires=2&signature=c", expiresAt: "2030-01-01T00:09:00Z" };
    s = reducer(s, { type: "conversationLoaded", requestedAt: 0, conversation: conversation("c1", "2030-01-01T00:00:00Z", [{ ...reply, attachments: [later] }]) });
    expect(s.messages).toHaveLength(1);
    expect(s.messages[0]?.attachments).toEqual([later]);
  });

  it("folds a snapshot and events in any order", () => {
    const m1 = msg("m1", "2030-01-01T00:00:01Z");
    const m2 = msg("m2", "2030-01-01T00:00:02Z", "outgoing", "ag");
    let s = started();
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: m2 } });
    s = reducer(s, { type: "conversationLoaded", requestedAt: 0, conversation: conversation("c1", "2030-01-01T00:00:00Z", [m1]) });
    expect(s.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(s.conversation?.number).toBe(7);
  });

  it("keeps what the hub said when the snapshot has no conversation yet", () => {
    let s = started();
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: msg("m1", "2030-01-01T00:00:01Z") } });
    s = reducer(s, { type: "conversationLoaded", conversation: null, requestedAt: 0 });
    expect(s.conversation?.id).toBe("c1");
    expect(s.messages).toHaveLength(1);
  });

  it("moves to a new conversation, and ignores late events of the old one", () => {
    let s = started();
    s = reducer(s, { type: "conversationLoaded", requestedAt: 0, conversation: conversation("old", "2030-01-01T00:00:00Z", [msg("m1", "2030-01-01T00:00:01Z")]) });
    s = reducer(s, { type: "messageCreated", event: { conversationId: "new", message: msg("m2", "2030-01-02T00:00:00Z") } });
    expect(s.conversation?.id).toBe("new");
    expect(s.messages.map((m) => m.id)).toEqual(["m2"]);
    const late = reducer(s, { type: "messageCreated", event: { conversationId: "old", message: msg("m0", "2030-01-01T00:00:05Z") } });
    expect(late).toBe(s);
    const stale = reducer(s, { type: "conversationLoaded", requestedAt: 0, conversation: conversation("old", "2030-01-01T00:00:00Z", []) });
    expect(stale).toBe(s);
  });

  it("updates the status of its own conversation only", () => {
    let s = started();
    s = reducer(s, { type: "conversationLoaded", requestedAt: 0, conversation: conversation("c1", "2030-01-01T00:00:00Z", []) });
    expect(reducer(s, { type: "conversationUpdated", event: { id: "c2", status: "resolved" }, at: 1 })).toBe(s);
    s = reducer(s, { type: "conversationUpdated", event: { id: "c1", status: "resolved" }, at: 1 });
    expect(s.conversation?.status).toBe("resolved");
  });
});

describe("a snapshot against live status", () => {
  const c1 = (status: Conversation["status"]) => ({ ...conversation("c1", "2030-01-01T00:00:00Z", []), status });
  const live = () => {
    let s = reducer(started(), { type: "conversationLoaded", conversation: c1("open"), requestedAt: 100 });
    s = reducer(s, { type: "conversationUpdated", event: { id: "c1", status: "resolved" }, at: 200 });
    return s;
  };

  it("keeps the hub's newer status over a snapshot requested before it", () => {
    const s = reducer(live(), { type: "conversationLoaded", conversation: c1("open"), requestedAt: 150 });
    expect(s.conversation?.status).toBe("resolved");
    // ...and still merges the snapshot's messages.
    const withMessages = reducer(live(), {
      type: "conversationLoaded",
      conversation: { ...c1("open"), messages: [msg("m1", "2030-01-01T00:00:01Z")] },
      requestedAt: 150,
    });
    expect(withMessages.messages.map((m) => m.id)).toEqual(["m1"]);
    expect(withMessages.conversation?.status).toBe("resolved");
  });

  it("takes the status of a snapshot requested after it", () => {
    const s = reducer(live(), { type: "conversationLoaded", conversation: c1("pending"), requestedAt: 250 });
    expect(s.conversation?.status).toBe("pending");
  });
});

describe("a resolved conversation", () => {
  const shown = (c: Conversation) => reducer(started(), { type: "conversationLoaded", conversation: c, requestedAt: 0 });

  it("asks for a rating when the snapshot says so, and not when the workspace does not ask", () => {
    expect(shown(resolved()).conversation).toMatchObject({ status: "resolved", askForRating: true, rating: null });
    expect(shown(resolved(false)).conversation?.askForRating).toBe(false);
  });

  it("learns whether to ask from the snapshot read after the hub said resolved", () => {
    let s = shown({ ...resolved(false), status: "open", resolvedAt: null });
    s = reducer(s, { type: "conversationUpdated", event: { id: "c1", status: "resolved" }, at: 200 });
    expect(s.conversation).toMatchObject({ status: "resolved", askForRating: false });
    // Asked for in the same millisecond: it agrees with the hub, so all it says counts.
    s = reducer(s, { type: "conversationLoaded", conversation: resolved(), requestedAt: 200 });
    expect(s.conversation).toMatchObject({ status: "resolved", askForRating: true, resolvedAt: RESOLVED_AT, statusAt: 200 });
  });

  it("keeps the hub's newer resolution over an older snapshot of the open conversation", () => {
    let s = shown(resolved());
    s = reducer(s, { type: "conversationUpdated", event: { id: "c1", status: "resolved" }, at: 200 });
    s = reducer(s, { type: "conversationLoaded", conversation: { ...resolved(false), status: "open", resolvedAt: null }, requestedAt: 100 });
    expect(s.conversation).toMatchObject({ status: "resolved", askForRating: true, resolvedAt: RESOLVED_AT });
  });

  it("stops asking once rated, and shows the rating", () => {
    const s = reducer(shown(resolved()), { type: "rated", rating: stored(4, "Quick, thanks") });
    expect(s.conversation).toMatchObject({ askForRating: false, rating: { rating: 4, comment: "Quick, thanks" } });
    // A snapshot asked for before the rating was stored does not ask again.
    const stale = reducer(s, { type: "conversationLoaded", conversation: resolved(), requestedAt: 0 });
    expect(stale.conversation).toMatchObject({ askForRating: false, rating: { rating: 4 } });
    // Rated elsewhere (another tab): the snapshot says so.
    expect(shown(resolved(false, { rating: 2, comment: null })).conversation).toMatchObject({
      askForRating: false,
      rating: { rating: 2, comment: null },
    });
  });

  it("ignores a rating that arrives after the conversation was reopened", () => {
    const s = reducer(shown(resolved()), { type: "conversationUpdated", event: { id: "c1", status: "open" }, at: 1 });
    expect(reducer(s, { type: "rated", rating: stored(5, null) })).toBe(s);
  });

  it("is reopened by the visitor's message: the same conversation, its messages kept, no rating asked", () => {
    const s = reducer(shown(resolved()), {
      type: "messageCreated",
      event: { conversationId: "c1", message: msg("m2", "2030-01-02T00:00:00Z") },
    });
    expect(s.conversation).toMatchObject({ id: "c1", number: 7, status: "open", resolvedAt: null, rating: null, askForRating: false });
    expect(s.messages.map((m) => m.id)).toEqual(["m1", "r1", "m2"]);
  });

  it("is reopened by the hub's status too, whichever comes first", () => {
    let s = reducer(shown(resolved(false, { rating: 3, comment: null })), {
      type: "conversationUpdated",
      event: { id: "c1", status: "open" },
      at: 1,
    });
    expect(s.conversation).toMatchObject({ status: "open", rating: null, askForRating: false });
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: msg("m2", "2030-01-02T00:00:00Z") } });
    expect(s.conversation).toMatchObject({ id: "c1", status: "open" });
    expect(s.messages).toHaveLength(3);
  });

  it("stays resolved for an agent's message, a repeated one, or one from before the resolution", () => {
    const s = shown(resolved());
    const event = (message: Message) => ({ type: "messageCreated" as const, event: { conversationId: "c1", message } });
    expect(reducer(s, event(msg("r2", "2030-01-02T00:00:00Z", "outgoing", "ag"))).conversation?.status).toBe("resolved");
    expect(reducer(s, event(msg("m1", "2030-01-01T00:00:01Z"))).conversation?.status).toBe("resolved");
    expect(reducer(s, event(msg("m0", "2030-01-01T00:09:00Z"))).conversation).toMatchObject({ status: "resolved", askForRating: true });
  });

  it("gives way to a new conversation when a message names another (7 days after the resolution)", () => {
    const s = reducer(shown(resolved()), {
      type: "messageCreated",
      event: { conversationId: "c2", message: msg("n1", "2030-01-09T00:00:00Z") },
    });
    expect(s.conversation).toMatchObject({ id: "c2", number: null, status: "open", rating: null, askForRating: false });
    expect(s.messages.map((m) => m.id)).toEqual(["n1"]);
  });
});

describe("sending", () => {
  it("is blocked until a time, and a new visitor starts unblocked", () => {
    let s = reducer(started(), { type: "blocked", until: 5000 });
    expect(s.blockedUntil).toBe(5000);
    s = reducer(s, { type: "session", reason: "renew", session: session("t2") });
    expect(s.blockedUntil).toBe(5000);
    s = reducer(s, { type: "session", reason: "new", session: session("t3") });
    expect(s.blockedUntil).toBeNull();
  });

  it("finds a send that arrived although its answer was lost", () => {
    const before = msg("m1", "2030-01-01T00:00:01Z");
    const known = new Set([before.id]);
    const same = { ...msg("m2", "2030-01-01T00:00:02Z"), body: "Hello there" };
    const c = conversation("c1", "2030-01-01T00:00:00Z", [before, same]);
    expect(sentMessage(c, " Hello there ", known)).toBe(same);
    expect(sentMessage(c, "Something else", known)).toBeNull();
    // Already there before the send: an earlier message with the same words, not this one.
    expect(sentMessage(c, "Hello there", new Set(["m1", "m2"]))).toBeNull();
    // An agent's message with the same words is not the visitor's.
    const agents = conversation("c1", "2030-01-01T00:00:00Z", [{ ...same, kind: "outgoing" }]);
    expect(sentMessage(agents, "Hello there", known)).toBeNull();
    expect(sentMessage(null, "Hello there", known)).toBeNull();
  });
});

describe("agents online", () => {
  const offline = () => reducer(initialState, { type: "session", reason: "new", session: session("t1", false) });

  it("follows each session, and flips on when an agent writes or types", () => {
    expect(offline().agentsOnline).toBe(false);
    const wrote = reducer(offline(), {
      type: "messageCreated",
      event: { conversationId: "c1", message: msg("r", "2030-01-01T00:00:01Z", "outgoing", "a1") },
    });
    expect(wrote.agentsOnline).toBe(true);
    const typed = reducer(offline(), {
      type: "typing",
      event: { conversationId: "c1", isTyping: true, by: "agent", agentId: "a1", displayName: "Ana" },
      now: 1,
    });
    expect(typed.agentsOnline).toBe(true);
    expect(reducer(typed, { type: "session", reason: "renew", session: session("t2", false) }).agentsOnline).toBe(false);
  });

  it("stays off for the visitor's own messages", () => {
    const s = reducer(offline(), { type: "messageCreated", event: { conversationId: "c1", message: msg("m", "2030-01-01T00:00:01Z") } });
    expect(s.agentsOnline).toBe(false);
  });
});

describe("sessions", () => {
  it("a renewal keeps the conversation; a new session starts over", () => {
    let s = started();
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: msg("m1", "2030-01-01T00:00:01Z") } });
    s = reducer(s, { type: "error", message: "Too many requests" });
    const renewed = reducer(s, { type: "session", reason: "renew", session: session("t2") });
    expect(renewed.session?.token).toBe("t2");
    expect(renewed.generation).toBe(s.generation);
    expect(renewed.messages).toHaveLength(1);
    expect(renewed.error).toBeNull();
    const other = reducer(s, { type: "session", reason: "new", session: session("t3") });
    expect(other.generation).toBe(s.generation + 1);
    expect(other.messages).toEqual([]);
    expect(other.conversation).toBeNull();
  });

  it("a renewal without a session yet is a start", () => {
    const s = reducer(initialState, { type: "session", reason: "renew", session: session() });
    expect(s.generation).toBe(1);
  });
});

describe("typing", () => {
  const typing = (isTyping: boolean, agentId = "a1", displayName = "Ana") => ({
    conversationId: "c1",
    isTyping,
    by: "agent" as const,
    agentId,
    displayName,
  });

  it("shows agents typing until they stop, reply, or go quiet", () => {
    let s = started();
    s = reducer(s, { type: "typing", event: typing(true), now: 1000 });
    s = reducer(s, { type: "typing", event: typing(true), now: 2000 });
    expect(typingText(s.typing)).toBe("Ana is typing…");
    s = reducer(s, { type: "typing", event: typing(true, "a2", "Ben"), now: 2000 });
    expect(typingText(s.typing)).toBe("Ana and Ben are typing…");
    s = reducer(s, { type: "typing", event: typing(false, "a2"), now: 2500 });
    expect(typingText(s.typing)).toBe("Ana is typing…");

    const replied = reducer(s, {
      type: "messageCreated",
      event: { conversationId: "c1", message: msg("r", "2030-01-01T00:00:01Z", "outgoing", "a1") },
    });
    expect(typingText(replied.typing)).toBeNull();

    expect(reducer(s, { type: "typingExpired", now: 2000 + TYPING_TTL_MS - 1 })).toBe(s);
    expect(reducer(s, { type: "typingExpired", now: 2000 + TYPING_TTL_MS }).typing).toEqual([]);
  });

  it("ignores the visitor's own typing echo", () => {
    const s = started();
    const event = { conversationId: "c1", isTyping: true, by: "visitor" as const, agentId: null, displayName: null };
    expect(reducer(s, { type: "typing", event, now: 1 })).toBe(s);
  });

  it("names three or more agents collectively", () => {
    const t = (agentId: string, displayName: string) => ({ agentId, displayName, at: 0 });
    expect(typingText([t("1", "A"), t("2", "B"), t("3", "C")])).toBe("Several agents are typing…");
    expect(typingText([])).toBeNull();
  });
});

describe("unread replies", () => {
  const reply = (id: string, at: string) => ({ conversationId: "c1", message: msg(id, at, "outgoing", "ag") });
  const opened = () => reducer(started(), { type: "panel", open: true });

  it("counts agent replies that arrive while the chat is closed, once each", () => {
    let s = reducer(opened(), { type: "messageCreated", event: reply("r1", "2030-01-01T00:00:01Z") });
    expect(s.unread).toBe(0);
    s = reducer(s, { type: "panel", open: false });
    s = reducer(s, { type: "messageCreated", event: reply("r2", "2030-01-01T00:00:02Z") });
    s = reducer(s, { type: "messageCreated", event: reply("r2", "2030-01-01T00:00:02Z") });
    s = reducer(s, { type: "messageCreated", event: { conversationId: "c1", message: msg("v1", "2030-01-01T00:00:03Z") } });
    expect(s.unread).toBe(1);
    s = reducer(s, { type: "messageCreated", event: reply("r3", "2030-01-01T00:00:04Z") });
    expect(s.unread).toBe(2);
    s = reducer(s, { type: "panel", open: true });
    expect(s.unread).toBe(0);
  });

  it("counts what a catch-up adds to the conversation shown, not the history of a new one", () => {
    let s = reducer(started(), {
      type: "conversationLoaded",
      requestedAt: 0,
      conversation: conversation("c1", "2030-01-01T00:00:00Z", [msg("r1", "2030-01-01T00:00:01Z", "outgoing", "ag")]),
    });
    expect(s.unread).toBe(0);
    s = reducer(s, {
      type: "conversationLoaded",
      requestedAt: 0,
      conversation: conversation("c1", "2030-01-01T00:00:00Z", [
        msg("r1", "2030-01-01T00:00:01Z", "outgoing", "ag"),
        msg("r2", "2030-01-01T00:00:02Z", "outgoing", "ag"),
      ]),
    });
    expect(s.unread).toBe(1);
  });

  it("keeps the chat's open state across another visitor's session", () => {
    const s = reducer(opened(), { type: "session", reason: "new", session: session("t2") });
    expect(s.panelOpen).toBe(true);
    expect(s.unread).toBe(0);
  });
});

describe("business hours", () => {
  it("tells the usual first reply while the team is in, and not while it is away", () => {
    expect(typicalReply(started())).toBeNull();
    expect(typicalReply(hours(started(), true, null, 1, 1800))).toBe(1800);
    expect(typicalReply(hours(started(), true, null, 1, null))).toBeNull();
    expect(typicalReply(hours(started(), false, null, 1, 1800))).toBeNull();
  });

  const CLOSES_AT = "2030-01-01T17:00:00Z";
  const OPENS_AT = "2030-01-02T08:00:00Z";
  const hours = (s: ChatState, open: boolean, changesAt: string | null, requestedAt: number, typicalReplySeconds: number | null = null) =>
    reducer(s, { type: "availabilityLoaded", availability: { open, changesAt, typicalReplySeconds }, requestedAt });

  it("shows no away notice before the hours are known, nor while the team is in", () => {
    expect(awayNotice(started())).toBeNull();
    const s = hours(started(), true, CLOSES_AT, 1);
    expect(s.availability).toEqual({ open: true, changesAt: CLOSES_AT, typicalReplySeconds: null, requestedAt: 1 });
    expect(awayNotice(s)).toBeNull();
  });

  it("is away outside the hours, asking for an email until the visitor leaves one", () => {
    let s = hours(started(), false, OPENS_AT, 1);
    expect(awayNotice(s)).toEqual({ email: null });
    s = reducer(s, { type: "contactSaved", contact: { name: null, email: "ida@example.org" } });
    expect(awayNotice(s)).toEqual({ email: "ida@example.org" });
  });

  it("names an address left before the team went away", () => {
    let s = reducer(started(), { type: "contactSaved", contact: { name: "Ida", email: "ida@example.org" } });
    s = hours(s, false, OPENS_AT, 1);
    expect(awayNotice(s)).toEqual({ email: "ida@example.org" });
  });

  it("hides the notice when the hours begin", () => {
    let s = hours(started(), false, OPENS_AT, 1);
    s = hours(s, true, "2030-01-02T17:00:00Z", 2);
    expect(awayNotice(s)).toBeNull();
  });

  it("drops an answer to a read older than the one shown", () => {
    let s = hours(started(), true, null, 2);
    const late = hours(s, false, OPENS_AT, 1);
    expect(late).toBe(s);
    s = hours(s, false, OPENS_AT, 2);
    expect(awayNotice(s)).toEqual({ email: null });
  });

  it("keeps the hours through a renewal, and forgets them for another visitor", () => {
    const s = hours(started(), false, OPENS_AT, 1);
    expect(reducer(s, { type: "session", reason: "renew", session: session("t2") }).availability).toEqual(s.availability);
    const other = reducer(s, { type: "session", reason: "new", session: session("t3") });
    expect(other.availability).toBeNull();
    expect(awayNotice(other)).toBeNull();
  });
});
