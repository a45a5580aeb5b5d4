// How hub events change what the dashboard holds. Pure functions from (cached value, event)
// to the next cached value, returning the same object when nothing changes, so TanStack
// Query re-renders nothing. `HubProvider` applies them to the query cache; the unit tests
// apply them to plain values.

import { typingFresh } from "@supportdesk/shared/typing";
import type { InfiniteData } from "@tanstack/react-query";
import type { TicketFilter } from "@/api/keys";
import type {
  Agent,
  AgentList,
  Channel,
  Comment,
  Contact,
  Conversation,
  ConversationList,
  ConversationStatus,
  Message,
  MessageList,
  Priority,
  Profile,
  Rating,
  Ticket,
  TicketList,
} from "@/api/types";
import type { MessageCreated, PresenceChanged, TypingEvent } from "./events";

/** The inbox list a cache entry holds: which tab and status filter. */
export interface InboxFilter {
  assignee: "me" | "unassigned" | "all";
  status: ConversationStatus | null;
  /** Only this contact's conversations; absent or null for everyone's. */
  contactId?: string | null;
  /** Only conversations with this label; absent or null for any. */
  labelId?: string | null;
  channel?: Channel | null;
  priority?: Priority | null;
  /** Only conversations with messages the agent has not read. */
  unread?: boolean;
  /** Only this agent's conversations (the All tab with one agent picked). */
  agentId?: string | null;
  /** Created or last changed within [after, before): RFC 3339 instants, as the API compares. */
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
}

/** `at` within [after, before): after inclusive, before exclusive. */
function within(at: string, after: string | undefined, before: string | undefined): boolean {
  const time = Date.parse(at);
  return (!after || time >= Date.parse(after)) && (!before || time < Date.parse(before));
}

// Page params are cursors; the reducers never read them.
export type ConversationPages = InfiniteData<ConversationList, unknown>;
export type MessagePages = InfiniteData<MessageList, unknown>;
export type TicketPages = InfiniteData<TicketList, unknown>;

/** Whether a conversation belongs in a list; `meId` is the signed-in agent's id. */
export function belongsTo(conversation: Conversation, filter: InboxFilter, meId: string | null): boolean {
  if (filter.status && conversation.status !== filter.status) return false;
  if (filter.contactId && conversation.contact.id !== filter.contactId) return false;
  if (filter.labelId && !(conversation.labels ?? []).some((label) => label.id === filter.labelId)) return false;
  if (filter.channel && conversation.channel !== filter.channel) return false;
  if (filter.priority && conversation.priority !== filter.priority) return false;
  // Events carry no unread count (it is one agent's view): only a read answer says "none".
  if (filter.unread && conversation.unreadCount === 0) return false;
  if (filter.agentId && conversation.assigneeId?.toLowerCase() !== filter.agentId.toLowerCase()) return false;
  if (!within(conversation.createdAt, filter.createdAfter, filter.createdBefore)) return false;
  if (!within(conversation.updatedAt, filter.updatedAfter, filter.updatedBefore)) return false;
  if (filter.assignee === "unassigned") return conversation.assigneeId == null;
  if (filter.assignee === "me") return meId !== null && conversation.assigneeId === meId;
  return true;
}

/** The API's order: newest activity first, then id descending. */
function newestFirst(a: Conversation, b: Conversation): number {
  return Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * A created or updated conversation, folded into one cached inbox list: replaced where it was,
 * added to the first page when it now belongs, removed when it no longer does (reassigned,
 * resolved), and the first page kept newest activity first. An update older than what the
 * list holds (events and a refetch crossing) is ignored.
 */
export function upsertConversation(
  data: ConversationPages | undefined,
  conversation: Conversation,
  filter: InboxFilter,
  meId: string | null,
): ConversationPages | undefined {
  if (!data) return data;
  const existing = data.pages.flatMap((p) => p.conversations).find((c) => c.id === conversation.id);
  if (existing && Date.parse(existing.updatedAt) > Date.parse(conversation.updatedAt)) return data;
  const belongs = belongsTo(conversation, filter, meId);
  if (!existing && !belongs) return data;
  const merged = existing ? keepReaderFields(conversation, existing) : firstSight(conversation);
  const pages = data.pages.map((page) => ({
    ...page,
    conversations: page.conversations.filter((c) => c.id !== conversation.id),
  }));
  if (belongs) {
    const first = pages[0] ?? { conversations: [], nextCursor: null };
    pages[0] = { ...first, conversations: [merged, ...first.conversations].sort(newestFirst) };
  }
  return { ...data, pages };
}

/**
 * Events carry no `unreadCount` (it is one agent's view) and may carry no `lastMessage`: an
 * update keeps what the row knew of them.
 */
function keepReaderFields(next: Conversation, known: Conversation): Conversation {
  return {
    ...next,
    unreadCount: next.unreadCount ?? known.unreadCount,
    lastMessage: next.lastMessage !== undefined ? next.lastMessage : known.lastMessage,
  };
}

/**
 * A conversation this list had not shown, as an event brings it (no `unreadCount`): a new chat
 * opens with the visitor's message, which nobody has read; its own `message.created` that
 * follows is that same message, not a second one.
 */
function firstSight(conversation: Conversation): Conversation {
  if (conversation.unreadCount !== undefined) return conversation;
  return { ...conversation, unreadCount: conversation.lastMessage?.kind === "incoming" ? 1 : 0 };
}

/** How many characters of a body `lastMessage` carries, as the API cuts it. */
const PREVIEW_CHARS = 200;

/**
 * A conversation after a new message: its last activity and preview, and one more unread for
 * an incoming message while the conversation is not on screen. A message no newer than what the
 * record knows (already counted by a fetch) changes nothing.
 */
export function withMessage(conversation: Conversation, event: MessageCreated, openConversationId: string | null): Conversation {
  const at = event.message.createdAt;
  if (Date.parse(conversation.lastMessageAt) >= Date.parse(at)) return conversation;
  const unread = event.message.kind === "incoming" && event.conversationId !== openConversationId;
  return {
    ...conversation,
    lastMessageAt: at,
    lastMessage: { kind: event.message.kind, body: [...event.message.body].slice(0, PREVIEW_CHARS).join(""), createdAt: at },
    unreadCount: unread ? (conversation.unreadCount ?? 0) + 1 : conversation.unreadCount,
  };
}

/** A new message in a cached inbox list that holds its conversation: the row updated (withMessage) and moved to the top. */
export function applyMessageToList(
  data: ConversationPages | undefined,
  event: MessageCreated,
  openConversationId: string | null,
): ConversationPages | undefined {
  if (!data) return data;
  const existing = data.pages.flatMap((p) => p.conversations).find((c) => c.id === event.conversationId);
  if (!existing) return data;
  const touched = withMessage(existing, event, openConversationId);
  if (touched === existing) return data;
  const pages = data.pages.map((page) => ({
    ...page,
    conversations: page.conversations.filter((c) => c.id !== event.conversationId),
  }));
  const first = pages[0] ?? { conversations: [], nextCursor: null };
  pages[0] = { ...first, conversations: [touched, ...first.conversations].sort(newestFirst) };
  return { ...data, pages };
}

/** The signed-in agent read a conversation: no unread left on its row. */
export function markListRead(data: ConversationPages | undefined, conversationId: string): ConversationPages | undefined {
  if (!data?.pages.some((p) => p.conversations.some((c) => c.id === conversationId && (c.unreadCount ?? 0) > 0))) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({
      ...page,
      conversations: page.conversations.map((c) => (c.id === conversationId ? { ...c, unreadCount: 0 } : c)),
    })),
  };
}

/** A new message moves its conversation to the top of a list that holds it. */
export function touchConversation(
  data: ConversationPages | undefined,
  conversationId: string,
  at: string,
): ConversationPages | undefined {
  if (!data) return data;
  const existing = data.pages.flatMap((p) => p.conversations).find((c) => c.id === conversationId);
  if (!existing || Date.parse(existing.lastMessageAt) >= Date.parse(at)) return data;
  const touched = { ...existing, lastMessageAt: at };
  const pages = data.pages.map((page) => ({
    ...page,
    conversations: page.conversations.filter((c) => c.id !== conversationId),
  }));
  const first = pages[0] ?? { conversations: [], nextCursor: null };
  pages[0] = { ...first, conversations: [touched, ...first.conversations].sort(newestFirst) };
  return { ...data, pages };
}

/** Whether a list holds the conversation (when not, the list is refetched instead). */
export function holdsConversation(data: ConversationPages | undefined, conversationId: string): boolean {
  return !!data?.pages.some((p) => p.conversations.some((c) => c.id === conversationId));
}

/** The conversation's own record, when the event is newer. */
export function replaceConversation(current: Conversation | undefined, next: Conversation): Conversation | undefined {
  if (current && current.id !== next.id) return current;
  if (current && Date.parse(current.updatedAt) > Date.parse(next.updatedAt)) return current;
  return next;
}

/**
 * A new message, appended to the conversation's cached messages (oldest first) once, with its
 * files (whose links, when the event log brought it, are fetched by the thread). While later
 * pages are still to load, it is left to them.
 */
export function appendMessage(data: MessagePages | undefined, event: MessageCreated): MessagePages | undefined {
  if (!data) return data;
  if (data.pages.some((p) => p.messages.some((m) => m.id === event.message.id))) return data;
  const lastIndex = data.pages.length - 1;
  const last = data.pages[lastIndex];
  if (!last || last.nextCursor) return data;
  const { id, kind, body, authorAgentId, createdAt, attachments, email } = event.message;
  const message: Message = {
    id,
    kind,
    body,
    authorAgentId,
    createdAt,
    ...(attachments?.length ? { attachments } : {}),
    // An email's From, To, subject, HTML and delivery: the thread shows them as it does after a reload.
    ...(email ? { email } : {}),
  };
  const pages = [...data.pages];
  pages[lastIndex] = { ...last, messages: [...last.messages, message] };
  return { ...data, pages };
}

/** An agent's presence, in a cached team list. */
export function applyPresence(data: AgentList | undefined, event: PresenceChanged): AgentList | undefined {
  if (!data || !data.agents.some((a) => a.id === event.agentId && a.presence !== event.presence)) return data;
  return {
    ...data,
    agents: data.agents.map((a: Agent) => (a.id === event.agentId ? { ...a, presence: event.presence } : a)),
  };
}

// ---- ratings -------------------------------------------------------------------------------

/**
 * A customer's rating, added once (by id) to the end of the conversation's ratings (oldest
 * first: each rates a later resolution). A rating seen again (its comment added later, from
 * the page an emailed rating link opens) replaces the one held; the same object when nothing
 * changed.
 */
export function withRating(conversation: Conversation, rating: Rating): Conversation {
  const ratings = conversation.ratings ?? [];
  const held = ratings.find((r) => r.id === rating.id);
  if (held) {
    if (held.comment === rating.comment && held.rating === rating.rating) return conversation;
    return { ...conversation, ratings: ratings.map((r) => (r.id === rating.id ? rating : r)) };
  }
  return { ...conversation, ratings: [...ratings, rating] };
}

/** A customer's rating on the conversation's row in a cached inbox list (the list's order stays). */
export function applyRatingToList(data: ConversationPages | undefined, conversationId: string, rating: Rating): ConversationPages | undefined {
  const rate = (c: Conversation) => (c.id === conversationId ? withRating(c, rating) : c);
  if (!data?.pages.some((p) => p.conversations.some((c) => c !== rate(c)))) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, conversations: page.conversations.map(rate) })),
  };
}

// ---- contacts ------------------------------------------------------------------------------

function sameContact(a: Contact, b: Contact): boolean {
  return a.id === b.id && a.name === b.name && a.email === b.email && a.claimedEmail === b.claimedEmail;
}

/** A contact's new details in one conversation that shows that contact. */
export function replaceContactIn<T extends { contact: Contact }>(item: T, contact: Contact): T {
  return item.contact.id === contact.id && !sameContact(item.contact, contact) ? { ...item, contact } : item;
}

/** A contact's new details in the conversations of a cached inbox list that show it. */
export function replaceContactInList(data: ConversationPages | undefined, contact: Contact): ConversationPages | undefined {
  if (!data?.pages.some((p) => p.conversations.some((c) => c !== replaceContactIn(c, contact)))) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, conversations: page.conversations.map((c) => replaceContactIn(c, contact)) })),
  };
}

/** A contact's new details as the requester of a ticket. */
export function replaceRequesterIn(ticket: Ticket, contact: Contact): Ticket {
  return ticket.requester.id === contact.id && !sameContact(ticket.requester, contact) ? { ...ticket, requester: contact } : ticket;
}

export function replaceRequesterInList(data: TicketPages | undefined, contact: Contact): TicketPages | undefined {
  if (!data?.pages.some((p) => p.tickets.some((t) => t !== replaceRequesterIn(t, contact)))) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, tickets: page.tickets.map((t) => replaceRequesterIn(t, contact)) })),
  };
}

// ---- tickets -------------------------------------------------------------------------------

/** Whether a ticket belongs in a list filtered by status and assignee (`me`, `unassigned`, an id). */
export function ticketBelongsTo(ticket: Ticket, filter: TicketFilter, meId: string | null): boolean {
  if (filter.status && ticket.status !== filter.status) return false;
  if (filter.assignee === null) return true;
  if (filter.assignee === "unassigned") return ticket.assigneeId == null;
  if (filter.assignee === "me") return meId !== null && ticket.assigneeId === meId;
  return ticket.assigneeId === filter.assignee;
}

/** The ticket's own record, when the event is newer. */
export function replaceTicket(current: Ticket | undefined, next: Ticket): Ticket | undefined {
  if (current && current.id !== next.id) return current;
  if (current && Date.parse(current.updatedAt) > Date.parse(next.updatedAt)) return current;
  return next;
}

/**
 * A created or updated ticket, folded into one cached ticket list (the API's order: number
 * descending): replaced where it was, removed when it no longer belongs, and put in its place
 * when it now belongs and that place is among the loaded pages (a later page brings it
 * otherwise). An update older than what the list holds is ignored.
 */
export function upsertTicket(data: TicketPages | undefined, ticket: Ticket, filter: TicketFilter, meId: string | null): TicketPages | undefined {
  if (!data) return data;
  const existing = data.pages.flatMap((p) => p.tickets).find((t) => t.id === ticket.id);
  if (existing && Date.parse(existing.updatedAt) > Date.parse(ticket.updatedAt)) return data;
  const belongs = ticketBelongsTo(ticket, filter, meId);
  if (existing) {
    return {
      ...data,
      pages: data.pages.map((page) => ({
        ...page,
        tickets: belongs ? page.tickets.map((t) => (t.id === ticket.id ? ticket : t)) : page.tickets.filter((t) => t.id !== ticket.id),
      })),
    };
  }
  if (!belongs) return data;
  // The first page whose last ticket is older (a smaller number), or the last page when every
  // page is loaded; none: the ticket sorts beyond what is loaded.
  const lastIndex = data.pages.length - 1;
  const index = data.pages.findIndex(
    (page, i) => page.tickets.some((t) => t.number < ticket.number) || (i === lastIndex && !page.nextCursor),
  );
  if (index < 0) return data;
  const pages = [...data.pages];
  const page = pages[index]!;
  pages[index] = { ...page, tickets: [...page.tickets, ticket].sort((a, b) => b.number - a.number) };
  return { ...data, pages };
}

/** A new comment, appended once to a ticket's cached comments (oldest first) when they are all loaded. */
export function appendComment<L extends { comments: Comment[]; nextCursor?: string | null }>(data: L | undefined, comment: Comment): L | undefined {
  if (!data || data.nextCursor || data.comments.some((c) => c.id === comment.id)) return data;
  return { ...data, comments: [...data.comments, comment] };
}

// ---- agents --------------------------------------------------------------------------------

/** The API's order for agents: who joined first, then id. */
function joinedFirst(a: Agent, b: Agent): number {
  return Date.parse(a.joinedAt) - Date.parse(b.joinedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * An agent's record (role, status, names, presence) in a cached team list of `active` members
 * or `all`: replaced, removed from `active` once deactivated, and added where it belongs.
 */
export function upsertAgent(data: AgentList | undefined, agent: Agent, status: "active" | "all"): AgentList | undefined {
  if (!data) return data;
  const belongs = status === "all" || agent.status === "active";
  const present = data.agents.some((a) => a.id === agent.id);
  if (!present && !belongs) return data;
  if (!present && data.nextCursor) return data; // beyond what is loaded
  const others = data.agents.filter((a) => a.id !== agent.id);
  if (!belongs) return { ...data, agents: others };
  if (present) return { ...data, agents: data.agents.map((a) => (a.id === agent.id ? agent : a)) };
  return { ...data, agents: [...others, agent].sort(joinedFirst) };
}

/** The signed-in agent's profile (an Agent with its notification preferences), when it is them. */
export function mergeProfile(profile: Profile | undefined, agent: Agent): Profile | undefined {
  return profile && profile.id === agent.id ? { ...profile, ...agent } : profile;
}

/** Who is typing where: conversation id -> typist key -> {name, since}. */
export type TypingState = Readonly<Record<string, Readonly<Record<string, { name: string; at: number }>>>>;

export function typistKey(event: Pick<TypingEvent, "by" | "agentId">): string {
  return event.by === "visitor" ? "visitor" : `agent:${event.agentId ?? "?"}`;
}

export function applyTyping(state: TypingState, event: TypingEvent, now: number): TypingState {
  const key = typistKey(event);
  const inConversation = state[event.conversationId] ?? {};
  if (event.isTyping) {
    const name = event.by === "visitor" ? "The visitor" : event.displayName || "An agent";
    return { ...state, [event.conversationId]: { ...inConversation, [key]: { name, at: now } } };
  }
  if (!(key in inConversation)) return state;
  const rest = Object.fromEntries(Object.entries(inConversation).filter(([k]) => k !== key));
  return { ...state, [event.conversationId]: rest };
}

/** A message from someone ends their typing. */
export function typingEndedByMessage(state: TypingState, event: MessageCreated): TypingState {
  const by = event.message.kind === "incoming" ? "visitor" : "agent";
  return applyTyping(state, { conversationId: event.conversationId, isTyping: false, by, agentId: event.message.authorAgentId }, 0);
}

/**
 * The names typing in a conversation now, but for the signed-in agent. A Typing event that
 * reaches nobody else is never cleared by the sender: entries expire (TYPING_TTL_MS).
 */
export function typists(state: TypingState, conversationId: string, now: number, meId: string | null): string[] {
  return Object.entries(state[conversationId] ?? {})
    .filter(([key, t]) => key !== `agent:${meId}` && typingFresh(t.at, now))
    .map(([, t]) => t.name);
}
