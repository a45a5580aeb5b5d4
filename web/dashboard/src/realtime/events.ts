// What the server tells agents of changes, in one place: the hub's server -> client events
// (REALTIME.md, "Events") and the workspace's event log (GET /api/events). Written by hand
// until the API's OpenAPI document names them; each type below carries the name of the schema
// the server will add, so that it becomes an alias once `npm run gen:api` has it:
//   export type HubConversation = components["schemas"]["HubConversation"];
// (LoggedEvent, EventPage, HubMessageCreated, HubConversation, HubTicket, HubContact,
// HubTicketComment, HubAgent). Records (Conversation, Ticket, ...) are the generated ones.

import type { Agent, Comment, Contact, Conversation, Message, Ticket } from "@/api/types";

// ---- records as events carry them ----------------------------------------------------------

/** Who wrote a message, as visitors see it (null for incoming messages). */
export interface MessageAuthor {
  displayName: string;
  avatarUrl?: string | null;
}

/**
 * A new message as the cache folds it, whichever way it came: a hub event, the event log, or
 * the REST answer to the agent's own send (which has no `author`).
 */
export interface MessageCreated {
  conversationId: string;
  message: Message & { author?: MessageAuthor | null };
}

// ---- hub events (agent connections) ------------------------------------------------------------
// Every event of a logged change carries its `seq` in the workspace's event log. Typing and
// PresenceChanged are not logged and carry none.

/** `MessageCreated`. Schema: HubMessageCreated. */
export interface HubMessageCreated extends MessageCreated {
  seq: number;
  message: Message & { author: MessageAuthor | null };
}

/** `ConversationCreated`, `ConversationUpdated`. Schema: HubConversation. */
export type HubConversation = Conversation & { seq: number };

/** `ContactCreated`, `ContactUpdated`. Schema: HubContact. */
export type HubContact = Contact & { seq: number };

/** `TicketCreated`, `TicketUpdated`. Schema: HubTicket. */
export type HubTicket = Ticket & { seq: number };

/** `TicketCommentCreated`. Schema: HubTicketComment. */
export interface HubTicketComment {
  seq: number;
  ticketId: string;
  comment: Comment;
}

/** `AgentUpdated`: the Agent record as GET /api/agents shows it. Schema: HubAgent. */
export type HubAgent = Agent & { seq: number };

/** The payload of each hub event that reports a logged change, by event name. */
export interface LoggedHubPayloads {
  MessageCreated: HubMessageCreated;
  ConversationCreated: HubConversation;
  ConversationUpdated: HubConversation;
  ContactCreated: HubContact;
  ContactUpdated: HubContact;
  TicketCreated: HubTicket;
  TicketUpdated: HubTicket;
  TicketCommentCreated: HubTicketComment;
  AgentUpdated: HubAgent;
}

export type LoggedHubEventName = keyof LoggedHubPayloads;

/** A hub event of a logged change: its name and payload (which holds its `seq`). */
export type LoggedHubEvent = { [N in LoggedHubEventName]: { name: N; payload: LoggedHubPayloads[N] } }[LoggedHubEventName];

/** `Typing` (not logged). */
export interface TypingEvent {
  conversationId: string;
  isTyping: boolean;
  by: "agent" | "visitor";
  agentId?: string | null;
  displayName?: string | null;
}

/** `PresenceChanged` (not logged). */
export interface PresenceChanged {
  agentId: string;
  presence: "online" | "offline";
}

// ---- the event log (GET /api/events) -----------------------------------------------------------

/** `message.created`'s data: the message, flat, with its conversation and contact. */
export interface LoggedMessage extends Message {
  conversationId: string;
  contactId: string;
  author: MessageAuthor | null;
}

/** `ticket_comment.created`'s data: a comment as GET /api/tickets/{id}/comments shows one. */
export interface LoggedTicketComment {
  ticketId: string;
  comment: Comment;
}

/** Each logged change's `data`, by `type`. */
export interface LoggedEventData {
  "conversation.created": Conversation;
  "conversation.updated": Conversation;
  "message.created": LoggedMessage;
  "contact.created": Contact;
  "contact.updated": Contact;
  "ticket.created": Ticket;
  "ticket.updated": Ticket;
  "ticket_comment.created": LoggedTicketComment;
  "agent.updated": Agent;
}

export type LoggedEventType = keyof LoggedEventData;

/** Who made a change. */
export interface EventActor {
  /** "agent", "visitor", "api_key", "system", ... */
  kind: string;
  id: string | null;
}

/** One entry of the log. Schema: LoggedEvent. */
export type LoggedEvent = {
  [T in LoggedEventType]: {
    id: string;
    /** Strictly increasing per workspace, without gaps once committed. */
    seq: number;
    type: T;
    occurredAt: string;
    actor: EventActor;
    data: LoggedEventData[T];
  };
}[LoggedEventType];

/**
 * GET /api/events: events after `after`, in seq order. `nextAfter` is the last seq returned
 * (or `after` when none): the next call's `after`; `head` the workspace's newest seq. Without
 * `after`: no events, `nextAfter` = `head` (a cursor "from now"). Schema: EventPage.
 *
 * `events` may hold types this client does not know yet (a newer server): they are skipped,
 * their seq still counted.
 */
export interface EventPage {
  events: LoggedEvent[];
  nextAfter: number;
  head: number;
}
