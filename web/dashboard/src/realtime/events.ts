// What the server tells agents of changes, in one place: the hub's server -> client events
// (REALTIME.md, "Events") and the workspace's event log (GET /api/events). Every payload type
// is generated from the API's OpenAPI document (`Hub*`, `MessageCreated`, `ConversationChanged`,
// `ConversationRated`, `TicketCommentCreated`, `AgentData`, `EventActor`: the very types the
// server serialises); only the pairing of names and payloads is written here.

import type { Contact, Conversation, Message, Ticket } from "@/api/types";
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

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

/** `MessageCreated`. */
export type HubMessageCreated = Schemas["HubMessageCreated"];

/** `ConversationCreated`, `ConversationUpdated` (with `change`). */
export type HubConversation = Schemas["HubConversation"];

/** `ConversationRated`: a customer's rating of a resolution, with its conversation and contact. */
export type HubConversationRated = Schemas["HubConversationRated"];

/** `ContactCreated`, `ContactUpdated`. */
export type HubContact = Schemas["HubContact"];

/** `TicketCreated`, `TicketUpdated`. */
export type HubTicket = Schemas["HubTicket"];

/** `TicketCommentCreated`. */
export type HubTicketComment = Schemas["HubTicketComment"];

/** `AgentUpdated`: the agent (without presence) and what changed. */
export type HubAgent = Schemas["HubAgent"];

/** The payload of each hub event that reports a logged change, by event name. */
export interface LoggedHubPayloads {
  MessageCreated: HubMessageCreated;
  ConversationCreated: HubConversation;
  ConversationUpdated: HubConversation;
  ConversationRated: HubConversationRated;
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
export type LoggedMessage = Schemas["MessageCreated"];

/** `ticket_comment.created`'s data: a comment as GET /api/tickets/{id}/comments shows one. */
export type LoggedTicketComment = Schemas["TicketCommentCreated"];

/** Each logged change's `data`, by `type`. */
export interface LoggedEventData {
  "conversation.created": Conversation;
  "conversation.updated": Schemas["ConversationChanged"];
  "conversation.rated": Schemas["ConversationRated"];
  "message.created": LoggedMessage;
  "contact.created": Contact;
  "contact.updated": Contact;
  "ticket.created": Ticket;
  "ticket.updated": Ticket;
  "ticket_comment.created": LoggedTicketComment;
  "agent.updated": Schemas["AgentData"];
}

export type LoggedEventType = keyof LoggedEventData;

/** Who made a change. */
export type EventActor = Schemas["EventActor"];

/** One entry of the log: the generated `LoggedEvent`, its `data` typed by its `type`. */
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
 * `after`: no events, `nextAfter` = `head` (a cursor "from now"). The generated `EventPage`,
 * its events typed by `type`.
 *
 * `events` may hold types this client does not know yet (a newer server): they are skipped,
 * their seq still counted.
 */
export interface EventPage {
  events: LoggedEvent[];
  nextAfter: number;
  head: number;
}
