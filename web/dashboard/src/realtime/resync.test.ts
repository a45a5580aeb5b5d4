// The whole path, on a bare QueryClient: the same 20 changes reach one tab live (hub events)
// and another from the event log after its connection dropped; both end with the same cache.

import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { keys, type TicketFilter } from "@/api/keys";
import type { Agent, AgentList, CommentList, Contact, Conversation, ConversationList, MessageList, Profile, Ticket, TicketList } from "@/api/types";
import { applyLoggedHubEvent, type FoldContext } from "./cache";
import { fromHub, fromLog, type Sequenced } from "./eventLog";
import type { LoggedEvent, LoggedEventData, LoggedEventType, LoggedHubEvent, LoggedMessage } from "./events";
import type { ConversationPages, InboxFilter, MessagePages, TicketPages } from "./reducers";
import { type LogPage, SequenceTracker } from "./sequence";

const WS = "w1";
const ME = "a-me";
const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 10, minute)).toISOString();

// ---- records -------------------------------------------------------------------------------

const contacts: Record<string, Contact> = {
  k1: { id: "k1", name: "Ida", displayName: "Ida", email: "ida@example.org", claimedEmail: null },
  k2: { id: "k2", name: null, displayName: "Teal Otter", email: null, claimedEmail: "bo@example.org" },
};

function conversation(id: string, number: number, contactId: string, minute: number, overrides: Partial<Conversation> = {}): Conversation {
  return {
    id,
    number,
    subject: null,
    status: "open",
    priority: null,
    assigneeId: null,
    contact: contacts[contactId]!,
    channel: "chat",
    lastMessageAt: at(minute),
    createdAt: at(minute),
    updatedAt: at(minute),
    ...overrides,
  };
}

function ticket(id: string, number: number, minute: number, overrides: Partial<Ticket> = {}): Ticket {
  return {
    id,
    number,
    subject: `Ticket ${number}`,
    description: null,
    status: "open",
    priority: null,
    assigneeId: null,
    conversationId: null,
    requester: contacts.k1!,
    createdAt: at(minute),
    updatedAt: at(minute),
    resolvedAt: null,
    ...overrides,
  };
}

function agent(id: string, name: string, overrides: Partial<Agent> = {}): Agent {
  return {
    id,
    userId: `u-${id}`,
    email: `${id}@example.org`,
    fullName: name,
    displayName: name,
    avatarUrl: null,
    role: "agent",
    status: "active",
    presence: "online",
    joinedAt: at(0),
    ...overrides,
  };
}

const c1 = conversation("c1", 1, "k1", 1, { assigneeId: ME });
const c2 = conversation("c2", 2, "k2", 2);
const t1 = ticket("t1", 1, 1, { assigneeId: ME });
const me = agent(ME, "Me");
const a2 = agent("a2", "Bea");

// ---- the server: each change logged with its seq, and sent as the hub event ------------------

class Server {
  readonly log: LoggedEvent[] = [];
  readonly live: LoggedHubEvent[] = [];

  private record<T extends LoggedEventType>(type: T, data: LoggedEventData[T], hub: (seq: number) => LoggedHubEvent): void {
    const seq = this.log.length + 1;
    this.log.push({ id: `e${seq}`, seq, type, occurredAt: at(30 + seq), actor: { kind: "agent", id: ME }, data } as LoggedEvent);
    this.live.push(hub(seq));
  }

  conversation(kind: "created" | "updated", c: Conversation) {
    const name = kind === "created" ? "ConversationCreated" : "ConversationUpdated";
    this.record(`conversation.${kind}`, c, (seq) => ({ name, payload: { ...c, seq } }));
  }

  message(m: LoggedMessage) {
    const { conversationId, id, kind, body, authorAgentId, author, createdAt } = m;
    this.record("message.created", m, (seq) => ({
      name: "MessageCreated",
      payload: { seq, conversationId, message: { id, kind, body, authorAgentId, author, createdAt } },
    }));
  }

  contact(kind: "created" | "updated", k: Contact) {
    const name = kind === "created" ? "ContactCreated" : "ContactUpdated";
    this.record(`contact.${kind}`, k, (seq) => ({ name, payload: { ...k, seq } }));
  }

  ticket(kind: "created" | "updated", t: Ticket) {
    const name = kind === "created" ? "TicketCreated" : "TicketUpdated";
    this.record(`ticket.${kind}`, t, (seq) => ({ name, payload: { ...t, seq } }));
  }

  comment(ticketId: string, comment: CommentList["comments"][number]) {
    this.record("ticket_comment.created", { ticketId, comment }, (seq) => ({ name: "TicketCommentCreated", payload: { seq, ticketId, comment } }));
  }

  agent(a: Agent) {
    // The log carries no presence (PresenceChanged does).
    const data = { ...a, presence: undefined, change: "profile" as const };
    this.record("agent.updated", data, (seq) => ({ name: "AgentUpdated", payload: { ...data, seq } }));
  }

  page(after: number | null, limit: number): LogPage<Sequenced> {
    const head = this.log.length;
    if (after === null) return { events: [], nextAfter: head, head };
    const events = this.log.filter((e) => e.seq > after).slice(0, limit);
    return { events: events.map(fromLog), nextAfter: events.at(-1)?.seq ?? after, head };
  }
}

function message(conversationId: string, id: string, kind: "incoming" | "outgoing" | "note", minute: number): LoggedMessage {
  const byMe = kind !== "incoming";
  return {
    conversationId,
    contactId: conversationId === "c3" ? "k3" : conversationId === "c1" ? "k1" : "k2",
    id,
    kind,
    body: `${kind} ${id}`,
    authorAgentId: byMe ? ME : null,
    author: byMe ? { displayName: "Me", avatarUrl: null } : null,
    createdAt: at(minute),
  };
}

/** Twenty changes of every kind, as the API would make them. */
function twentyChanges(server: Server) {
  const k3: Contact = { id: "k3", name: "Cy", displayName: "Cy", email: "cy@example.org", claimedEmail: null };
  const c3 = conversation("c3", 3, "k1", 12, { assigneeId: ME, contact: k3 });
  server.message(message("c1", "m11", "incoming", 11)); // 1
  server.conversation("updated", { ...c1, status: "pending", lastMessageAt: at(11), updatedAt: at(11) }); // 2
  server.contact("created", k3); // 3
  server.conversation("created", c3); // 4
  server.message(message("c3", "m12", "outgoing", 12)); // 5
  server.message(message("c2", "m13", "note", 13)); // 6
  server.conversation("updated", { ...c2, assigneeId: ME, lastMessageAt: at(13), updatedAt: at(14) }); // 7
  const k1 = { ...contacts.k1!, name: "Ida Pfeiffer" };
  server.contact("updated", k1); // 8
  const t2 = ticket("t2", 2, 15, { requester: k1, conversationId: "c1" });
  server.ticket("created", t2); // 9
  server.comment("t1", { id: "tc2", body: "Called back", authorAgentId: ME, createdAt: at(16) }); // 10
  server.ticket("updated", { ...t1, requester: k1, status: "resolved", resolvedAt: at(17), updatedAt: at(17) }); // 11
  server.agent({ ...a2, status: "deactivated", presence: "offline" }); // 12
  server.agent({ ...me, displayName: "Me Myself" }); // 13
  server.message(message("c1", "m18", "outgoing", 18)); // 14
  server.conversation("updated", { ...c1, contact: k1, status: "resolved", lastMessageAt: at(18), updatedAt: at(19) }); // 15
  server.message(message("c2", "m20", "incoming", 20)); // 16
  server.conversation("updated", { ...c3, priority: "high", updatedAt: at(21) }); // 17
  server.ticket("updated", { ...t2, assigneeId: "a2", updatedAt: at(22) }); // 18
  server.contact("updated", { ...k3, email: "cy@example.net" }); // 19
  server.message(message("c4", "m23", "incoming", 23)); // 20: a conversation no loaded list holds
}

// ---- a tab: its cache as the pages left it, and its tracker -----------------------------------

function infinite<T>(page: T) {
  return { pages: [page], pageParams: [null] };
}

function seededCache(): QueryClient {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const inbox = (filter: InboxFilter, conversations: Conversation[]) =>
    qc.setQueryData<ConversationPages>(keys.inbox(WS, filter), infinite<ConversationList>({ conversations, nextCursor: null }));
  inbox({ assignee: "all", status: null }, [c2, c1]);
  inbox({ assignee: "me", status: null }, [c1]);
  inbox({ assignee: "unassigned", status: null }, [c2]);
  inbox({ assignee: "all", status: "open" }, [c2, c1]);
  qc.setQueryData(keys.conversation(WS, "c1"), c1);
  qc.setQueryData<MessagePages>(
    keys.messages(WS, "c1"),
    infinite<MessageList>({ messages: [{ id: "m1", kind: "incoming", body: "Hi", authorAgentId: null, createdAt: at(1) }], nextCursor: null }),
  );
  qc.setQueryData<MessagePages>(keys.messages(WS, "c2"), infinite<MessageList>({ messages: [], nextCursor: null }));
  const tickets = (filter: TicketFilter, list: Ticket[]) =>
    qc.setQueryData<TicketPages>(keys.tickets(WS, filter), infinite<TicketList>({ tickets: list, nextCursor: null }));
  tickets({ status: null, assignee: null }, [t1]);
  tickets({ status: "open", assignee: null }, [t1]);
  tickets({ status: null, assignee: "me" }, [t1]);
  tickets({ status: null, assignee: "a2" }, []);
  qc.setQueryData(keys.ticket(WS, "t1"), t1);
  qc.setQueryData<CommentList>(keys.comments(WS, "t1"), {
    comments: [{ id: "tc1", body: "Looking", authorAgentId: ME, createdAt: at(2) }],
    nextCursor: null,
  });
  qc.setQueryData<AgentList>(keys.agents(WS, "active"), { agents: [me, a2], nextCursor: null });
  qc.setQueryData<AgentList>(keys.agents(WS, "all"), { agents: [me, a2], nextCursor: null });
  qc.setQueryData<Profile>(keys.profile(WS), { ...me, notificationPreferences: { desktop: true, emailOnAssignment: true, emailOnContactReply: true, emailOnNewConversation: false, emailOnMention: true, sound: false }, sendWithEnter: true });
  return qc;
}

function tab(server: Server, limit: number) {
  const queryClient = seededCache();
  const ctx: FoldContext = { ws: WS, meId: ME, openConversationId: null };
  let reloads = 0;
  const tracker = new SequenceTracker<Sequenced>({
    fetchPage: async (after, n) => server.page(after, n),
    apply: ({ event }) => {
      if (event) applyLoggedHubEvent(queryClient, ctx, event);
    },
    reload: () => reloads++,
    limit,
  });
  return { queryClient, tracker, reloads: () => reloads };
}

/** Every query's key, data and whether it was invalidated, in key order. */
function snapshot(queryClient: QueryClient) {
  return queryClient
    .getQueryCache()
    .getAll()
    .map((q) => ({ key: JSON.stringify(q.queryKey), data: q.state.data, invalidated: q.state.isInvalidated }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

function ids(queryClient: QueryClient, key: readonly unknown[]): string[] {
  const data = queryClient.getQueryData<ConversationPages | TicketPages>(key);
  return data?.pages.flatMap((p) => ("conversations" in p ? p.conversations : p.tickets).map((x) => x.id)) ?? [];
}

describe("catching up through the event log", () => {
  it("drop the socket, 20 changes, reconnect: the same cache as the 20 events live", async () => {
    const server = new Server();
    const live = tab(server, 500);
    const dropped = tab(server, 7); // 20 changes: pages of 7, 7 and 6
    await live.tracker.connected();
    await dropped.tracker.connected();

    twentyChanges(server); // the dropped tab hears none of them
    for (const event of server.live) live.tracker.receive(fromHub(event)!);
    await dropped.tracker.connected(); // the connection is back

    expect(server.log).toHaveLength(20);
    expect(live.tracker.lastSeq).toBe(20);
    expect(dropped.tracker.lastSeq).toBe(20);
    expect(live.reloads()).toBe(1); // the first connect's fresh load, nothing after
    expect(dropped.reloads()).toBe(1);
    expect(snapshot(dropped.queryClient)).toEqual(snapshot(live.queryClient));

    // And that cache is the one the changes make.
    const qc = dropped.queryClient;
    expect(ids(qc, keys.inbox(WS, { assignee: "all", status: null }))).toEqual(["c2", "c1", "c3"]);
    expect(ids(qc, keys.inbox(WS, { assignee: "me", status: null }))).toEqual(["c2", "c1", "c3"]);
    expect(ids(qc, keys.inbox(WS, { assignee: "unassigned", status: null }))).toEqual([]);
    expect(ids(qc, keys.inbox(WS, { assignee: "all", status: "open" }))).toEqual(["c2", "c3"]);
    const mine = qc.getQueryData<ConversationPages>(keys.inbox(WS, { assignee: "me", status: null }))!.pages[0]!.conversations;
    expect(mine.find((c) => c.id === "c3")?.contact.email).toBe("cy@example.net");
    expect(mine.find((c) => c.id === "c1")?.contact.name).toBe("Ida Pfeiffer");
    expect(mine.find((c) => c.id === "c2")?.lastMessageAt).toBe(at(20));
    // c4 woke up (20): every list without it is to be fetched again.
    expect(qc.getQueryCache().findAll({ queryKey: keys.conversations(WS) }).map((q) => q.state.isInvalidated)).toEqual([true, true, true, true]);
    expect(qc.getQueryData<Conversation>(keys.conversation(WS, "c1"))?.status).toBe("resolved");
    expect(qc.getQueryData<MessagePages>(keys.messages(WS, "c1"))?.pages[0]?.messages.map((m) => m.id)).toEqual(["m1", "m11", "m18"]);
    expect(ids(qc, keys.tickets(WS, { status: null, assignee: null }))).toEqual(["t2", "t1"]);
    expect(ids(qc, keys.tickets(WS, { status: "open", assignee: null }))).toEqual(["t2"]);
    expect(ids(qc, keys.tickets(WS, { status: null, assignee: "a2" }))).toEqual(["t2"]);
    expect(qc.getQueryData<Ticket>(keys.ticket(WS, "t1"))?.status).toBe("resolved");
    expect(qc.getQueryData<CommentList>(keys.comments(WS, "t1"))?.comments.map((c) => c.id)).toEqual(["tc1", "tc2"]);
    expect(qc.getQueryData<AgentList>(keys.agents(WS, "active"))?.agents.map((a) => a.displayName)).toEqual(["Me Myself"]);
    expect(qc.getQueryData<AgentList>(keys.agents(WS, "all"))?.agents.map((a) => a.status)).toEqual(["active", "deactivated"]);
    expect(qc.getQueryData<Profile>(keys.profile(WS))).toMatchObject({ displayName: "Me Myself", notificationPreferences: { desktop: true } });
  });

  it("live events that cross the catch-up change nothing twice", async () => {
    const server = new Server();
    const live = tab(server, 500);
    const late = tab(server, 5);
    await live.tracker.connected();
    await late.tracker.connected();
    twentyChanges(server);
    for (const event of server.live) live.tracker.receive(fromHub(event)!);
    // The late tab hears the last three live, out of order, the first of them while reconnecting.
    const [e18, e19, e20] = server.live.slice(17).map((e) => fromHub(e)!);
    const reconnect = late.tracker.connected();
    late.tracker.receive(e20!);
    late.tracker.receive(e18!);
    await reconnect;
    late.tracker.receive(e19!);
    expect(snapshot(late.queryClient)).toEqual(snapshot(live.queryClient));
  });
});
