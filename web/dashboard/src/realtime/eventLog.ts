// The event log's entries as the hub events they correspond to. One table: each logged `type`
// names its hub event and how its `data` becomes that event's payload, so an entry read from
// GET /api/events is folded into the cache by exactly the code that folds the live event
// (`applyLoggedHubEvent` in ./cache), and the two paths cannot drift. Pure.

import type {
  LoggedEvent,
  LoggedEventData,
  LoggedEventType,
  LoggedHubEvent,
  LoggedHubEventName,
  LoggedHubPayloads,
} from "./events";

type Mapping = {
  [T in LoggedEventType]: {
    [N in LoggedHubEventName]: { event: N; payload(data: LoggedEventData[T], seq: number): LoggedHubPayloads[N] };
  }[LoggedHubEventName];
};

/** Logged `type` -> hub event, and its `data` -> that event's payload. */
export const LOG_TO_HUB: Mapping = {
  "conversation.created": { event: "ConversationCreated", payload: (conversation, seq) => ({ ...conversation, seq }) },
  "conversation.updated": { event: "ConversationUpdated", payload: (conversation, seq) => ({ ...conversation, seq }) },
  "conversation.rated": {
    event: "ConversationRated",
    payload: ({ conversationId, contactId, rating }, seq) => ({ seq, conversationId, contactId, rating }),
  },
  "message.created": {
    event: "MessageCreated",
    payload: (m, seq) => ({
      seq,
      conversationId: m.conversationId,
      message: {
        id: m.id,
        kind: m.kind,
        body: m.body,
        authorAgentId: m.authorAgentId ?? null,
        author: m.author ?? null,
        createdAt: m.createdAt,
        // The log keeps a file's facts, not its links (they would be dead by now).
        ...(m.attachments?.length ? { attachments: m.attachments } : {}),
        // An email's envelope, HTML and sender checks, as the live event carries them.
        ...(m.email ? { email: m.email } : {}),
      },
    }),
  },
  "contact.created": { event: "ContactCreated", payload: (contact, seq) => ({ ...contact, seq }) },
  "contact.updated": { event: "ContactUpdated", payload: (contact, seq) => ({ ...contact, seq }) },
  "ticket.created": { event: "TicketCreated", payload: (ticket, seq) => ({ ...ticket, seq }) },
  "ticket.updated": { event: "TicketUpdated", payload: (ticket, seq) => ({ ...ticket, seq }) },
  "ticket_comment.created": {
    event: "TicketCommentCreated",
    payload: ({ ticketId, comment }, seq) => ({ seq, ticketId, comment }),
  },
  "agent.updated": { event: "AgentUpdated", payload: (agent, seq) => ({ ...agent, seq }) },
};

/** Every hub event that reports a logged change: the ones whose payload carries a `seq`. */
export const LOGGED_HUB_EVENTS: readonly LoggedHubEventName[] = [...new Set(Object.values(LOG_TO_HUB).map((m) => m.event))];

/** A change with its place in the log; `event` is null for a type this client does not know. */
export interface Sequenced {
  seq: number;
  event: LoggedHubEvent | null;
}

function isKnownType(type: string): type is LoggedEventType {
  return Object.hasOwn(LOG_TO_HUB, type);
}

/** A log entry as the hub event that reports the same change (null for an unknown type). */
export function toHubEvent(entry: LoggedEvent): LoggedHubEvent | null {
  if (!isKnownType(entry.type)) return null;
  const mapping = LOG_TO_HUB[entry.type] as { event: LoggedHubEventName; payload(data: unknown, seq: number): unknown };
  return { name: mapping.event, payload: mapping.payload(entry.data, entry.seq) } as LoggedHubEvent;
}

/** A log entry, sequenced (what the tracker applies). */
export function fromLog(entry: LoggedEvent): Sequenced {
  return { seq: entry.seq, event: toHubEvent(entry) };
}

/** A live hub event of a logged change, sequenced; null when its payload has no seq (an older server). */
export function fromHub(event: LoggedHubEvent): Sequenced | null {
  const seq = (event.payload as { seq?: unknown }).seq;
  return typeof seq === "number" && Number.isSafeInteger(seq) ? { seq, event } : null;
}
