import { describe, expect, it } from "vitest";
import type { Agent, Comment, Contact, Conversation, Rating, Ticket } from "@/api/types";
import { fromHub, fromLog, LOG_TO_HUB, LOGGED_HUB_EVENTS, toHubEvent } from "./eventLog";
import type { LoggedEvent, LoggedEventType, LoggedHubEvent } from "./events";

const contact: Contact = { id: "k1", name: "Ida", displayName: "Ida", email: "ida@example.org", claimedEmail: null };
const conversation: Conversation = {
  id: "c1",
  number: 7,
  subject: null,
  status: "open",
  priority: null,
  assigneeId: null,
  contact,
  channel: "chat",
  lastMessageAt: "2026-11-23T10:00:00Z",
  createdAt: "2026-11-23T10:00:00Z",
  updatedAt: "2026-11-23T10:00:00Z",
};
const ticket: Ticket = {
  id: "t1",
  number: 3,
  subject: "Refund",
  description: null,
  status: "open",
  priority: "high",
  assigneeId: null,
  conversationId: "c1",
  requester: contact,
  createdAt: "2026-11-23T10:00:00Z",
  updatedAt: "2026-11-23T10:00:00Z",
  resolvedAt: null,
};
const comment: Comment = { id: "m1", body: "Called them", authorAgentId: "a1", createdAt: "2026-11-23T10:01:00Z" };
const agent: Agent = {
  id: "a1",
  userId: "u1",
  email: "ada@example.org",
  fullName: "Ada Lovelace",
  displayName: "Ada",
  avatarUrl: null,
  role: "agent",
  status: "active",
  presence: "online",
  joinedAt: "2026-11-01T00:00:00Z",
};
const rating: Rating = {
  id: "r1",
  rating: 4,
  comment: "Fast, thanks!",
  resolvedAt: "2026-11-23T10:05:00Z",
  createdAt: "2026-11-23T10:06:00Z",
};
/** `agent.updated`'s data: the agent without presence, and what changed. */
const agentData = { ...agent, presence: undefined, change: "profile" as const };

function entry<T extends LoggedEventType>(seq: number, type: T, data: Extract<LoggedEvent, { type: T }>["data"]): LoggedEvent {
  return { id: `e${seq}`, seq, type, occurredAt: "2026-11-23T10:02:00Z", actor: { kind: "agent", id: "a1" }, data } as LoggedEvent;
}

describe("the event log's entries as hub events", () => {
  it("map every logged type to the hub event that reports it, with the same payload", () => {
    const cases: [LoggedEvent, LoggedHubEvent][] = [
      [entry(1, "conversation.created", conversation), { name: "ConversationCreated", payload: { ...conversation, seq: 1 } }],
      [
        entry(2, "conversation.updated", { ...conversation, change: "status" }),
        { name: "ConversationUpdated", payload: { ...conversation, change: "status", seq: 2 } },
      ],
      [
        entry(3, "message.created", {
          conversationId: "c1",
          contactId: "k1",
          id: "m9",
          kind: "outgoing",
          body: "Hello",
          authorAgentId: "a1",
          author: { displayName: "Ada", avatarUrl: null },
          createdAt: "2026-11-23T10:03:00Z",
        }),
        {
          name: "MessageCreated",
          payload: {
            seq: 3,
            conversationId: "c1",
            message: { id: "m9", kind: "outgoing", body: "Hello", authorAgentId: "a1", author: { displayName: "Ada", avatarUrl: null }, createdAt: "2026-11-23T10:03:00Z" },
          },
        },
      ],
      [entry(4, "contact.created", contact), { name: "ContactCreated", payload: { ...contact, seq: 4 } }],
      [entry(5, "contact.updated", contact), { name: "ContactUpdated", payload: { ...contact, seq: 5 } }],
      [entry(6, "ticket.created", ticket), { name: "TicketCreated", payload: { ...ticket, seq: 6 } }],
      [entry(7, "ticket.updated", ticket), { name: "TicketUpdated", payload: { ...ticket, seq: 7 } }],
      [entry(8, "ticket_comment.created", { ticketId: "t1", comment }), { name: "TicketCommentCreated", payload: { seq: 8, ticketId: "t1", comment } }],
      [entry(9, "agent.updated", agentData), { name: "AgentUpdated", payload: { ...agentData, seq: 9 } }],
      [
        entry(10, "conversation.rated", { conversationId: "c1", contactId: "k1", rating }),
        { name: "ConversationRated", payload: { seq: 10, conversationId: "c1", contactId: "k1", rating } },
      ],
    ];
    expect(cases.map(([e]) => e.type).sort()).toEqual(Object.keys(LOG_TO_HUB).sort());
    for (const [logged, hub] of cases) {
      expect(toHubEvent(logged)).toEqual(hub);
      expect(fromLog(logged)).toEqual({ seq: logged.seq, event: hub });
      expect(fromHub(hub)).toEqual({ seq: logged.seq, event: hub });
    }
  });

  it("carry a message's files, without links, into the hub event", () => {
    const file = { id: "f1", name: "invoice.pdf", contentType: "application/pdf", size: 1234, width: null, height: null, hasThumbnail: false };
    const logged = entry(10, "message.created", {
      conversationId: "c1",
      contactId: "k1",
      id: "m10",
      kind: "incoming",
      body: "",
      authorAgentId: null,
      author: null,
      createdAt: "2026-11-23T10:04:00Z",
      attachments: [file],
    });
    const event = toHubEvent(logged);
    expect(event?.name).toBe("MessageCreated");
    expect(event?.name === "MessageCreated" ? event.payload.message.attachments : null).toEqual([file]);
  });

  it("carry an email's details into the hub event, as the live event has them", () => {
    const logged = entry(11, "message.created", {
      conversationId: "c1",
      contactId: "k1",
      id: "m11",
      kind: "incoming",
      body: "The printer prints stripes",
      authorAgentId: null,
      author: null,
      createdAt: "2026-11-23T10:05:00Z",
      email: {
        from: { address: "renee@example.com", name: "Renée" },
        to: [{ address: "support@acme.test", name: null }],
        cc: [],
        subject: "Printer",
        html: "<p>The printer prints stripes</p>",
        quoted: null,
        dmarcFailed: true,
        senderChecks: null,
        delivery: null,
      },
    });
    const event = toHubEvent(logged);
    const message = event?.name === "MessageCreated" ? event.payload.message : null;
    expect(message?.email?.dmarcFailed).toBe(true);
    expect(message?.email?.html).toBe("<p>The printer prints stripes</p>");
  });

  it("name each hub event of a logged change once", () => {
    expect([...LOGGED_HUB_EVENTS].sort()).toEqual(
      [
        "AgentUpdated",
        "ContactCreated",
        "ContactUpdated",
        "ConversationCreated",
        "ConversationRated",
        "ConversationUpdated",
        "MessageCreated",
        "TicketCommentCreated",
        "TicketCreated",
        "TicketUpdated",
      ].sort(),
    );
  });

  it("keep the seq of a type this client does not know, with nothing to fold", () => {
    const unknown = { ...entry(12, "contact.created", contact), type: "canned_response.created" } as unknown as LoggedEvent;
    expect(fromLog(unknown)).toEqual({ seq: 12, event: null });
  });

  it("tell a live event without a seq (a server without the log)", () => {
    expect(fromHub({ name: "ConversationUpdated", payload: conversation } as LoggedHubEvent)).toBeNull();
  });
});
