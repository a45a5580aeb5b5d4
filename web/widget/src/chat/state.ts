// The chat page's state lives here, in one place, and every change is a pure fold: REST
// snapshots and hub events arrive in any order and more than once (MessageCreated also echoes
// the visitor's own sends), so messages are merged by id and ordered by createdAt. A resolved
// conversation stays the visitor's for 7 days: their next message reopens it (same id), and
// meanwhile it may ask for a rating of the resolution. Outside the team's business hours the
// chat says it is away and asks for an email address (the visitor may still write).

import { typingFresh } from "@supportdesk/shared/typing";
import type { SessionReason, WidgetSession } from "@/loader/protocol";
import type { Availability, Contact, Conversation, ConversationUpdated, Message, MessageCreated, Rating, TypingEvent } from "./types";

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "disconnected";

export type ConversationInfo = Omit<Conversation, "messages" | "number"> & {
  number: number | null;
  /** When (local ms) the hub last told its status; a snapshot requested before then is older. */
  statusAt?: number;
};

/** The team's business hours as last read; `requestedAt`: when that read started (local ms). */
export type AvailabilityInfo = Availability & { requestedAt: number };

export interface TypingAgent {
  agentId: string;
  displayName: string;
  /** When the last `isTyping: true` arrived (ms). */
  at: number;
}

export interface ChatState {
  session: WidgetSession | null;
  /** Bumped when another visitor or identity starts, so what belongs to a session restarts. */
  generation: number;
  conversation: ConversationInfo | null;
  messages: Message[];
  typing: TypingAgent[];
  /** From the session (each renewal re-checks it); an agent writing or typing proves it. */
  agentsOnline: boolean;
  connection: ConnectionStatus;
  /** Rate limited: no sending before this time (local ms). */
  blockedUntil: number | null;
  /** Text shown to the visitor (an API `detail` or a hub error message). */
  error: string | null;
  contact: Contact | null;
  /** Null until first read: the chat shows nothing of business hours until it knows them. */
  availability: AvailabilityInfo | null;
  /** The loader shows the chat (it stays connected while closed). */
  panelOpen: boolean;
  /** Agent messages that arrived while the chat was closed; cleared on open. */
  unread: number;
}

export type ChatAction =
  | { type: "session"; reason: SessionReason; session: WidgetSession }
  /** `requestedAt`: when the GET started (local ms). */
  | { type: "conversationLoaded"; conversation: Conversation | null; requestedAt: number }
  | { type: "messageCreated"; event: MessageCreated }
  /** `at`: when the hub event arrived (local ms). */
  | { type: "conversationUpdated"; event: ConversationUpdated; at: number }
  | { type: "typing"; event: TypingEvent; now: number }
  | { type: "typingExpired"; now: number }
  | { type: "connection"; status: ConnectionStatus }
  | { type: "error"; message: string | null }
  | { type: "blocked"; until: number | null }
  | { type: "contactSaved"; contact: Contact }
  /** `requestedAt`: when the GET started (local ms); an answer to an older one is dropped. */
  | { type: "availabilityLoaded"; availability: Availability; requestedAt: number }
  /** The API stored the visitor's rating (`POST /widget/v1/conversation/rating` -> 201). */
  | { type: "rated"; rating: Rating }
  | { type: "panel"; open: boolean };

export const initialState: ChatState = {
  session: null,
  generation: 0,
  conversation: null,
  messages: [],
  typing: [],
  agentsOnline: false,
  connection: "connecting",
  blockedUntil: null,
  error: null,
  contact: null,
  availability: null,
  panelOpen: false,
  unread: 0,
};

function byTime(a: Message, b: Message): number {
  return Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Union by id (the newer copy wins), ordered by createdAt then id. */
export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  return [...byId.values()].sort(byTime);
}

/** Agent replies among `incoming` that `current` does not hold yet. */
function newReplies(current: Message[], incoming: Message[]): number {
  const known = new Set(current.map((m) => m.id));
  return incoming.filter((m) => m.kind === "outgoing" && !known.has(m.id)).length;
}

/** Replies that arrived while the chat was closed count as unread. */
function unreadAfter(state: ChatState, current: Message[], incoming: Message[]): number {
  return state.panelOpen ? state.unread : state.unread + newReplies(current, incoming);
}

function info(c: Conversation): ConversationInfo {
  return {
    id: c.id,
    number: c.number,
    status: c.status,
    createdAt: c.createdAt,
    resolvedAt: c.resolvedAt,
    rating: c.rating,
    askForRating: c.askForRating,
  };
}

/** Open again: its last resolution, and any rating of it, are past. */
function reopened(c: ConversationInfo, status: ConversationInfo["status"] = "open"): ConversationInfo {
  return { ...c, status, resolvedAt: null, rating: null, askForRating: false };
}

/** A rating given here stays through a snapshot of the same resolution asked for before it was stored. */
function keptRating(current: ConversationInfo, next: ConversationInfo): ConversationInfo {
  const ratedHere = current.rating && !next.rating && next.status === "resolved" && next.resolvedAt === current.resolvedAt;
  return ratedHere ? { ...next, rating: current.rating, askForRating: false } : next;
}

/** A snapshot of the conversation shown, asked for at `requestedAt`. */
function refreshed(current: ConversationInfo, c: Conversation, requestedAt: number): ConversationInfo {
  const snapshot = info(c);
  const live = current.statusAt !== undefined && current.statusAt >= requestedAt;
  if (!live) return keptRating(current, snapshot);
  if (c.status === current.status) return keptRating(current, { ...snapshot, statusAt: current.statusAt });
  // The hub told another status after this snapshot was asked for: the snapshot is older, and
  // so is what it says of the resolution and its rating.
  const { status, statusAt, resolvedAt, rating, askForRating } = current;
  return { ...snapshot, status, statusAt, resolvedAt, rating, askForRating };
}

/** The visitor writing in a resolved conversation reopens it; an older or repeated message does not. */
function reopensWith(current: ConversationInfo, message: Message, known: Message[]): boolean {
  if (current.status !== "resolved" || message.kind !== "incoming") return false;
  if (known.some((m) => m.id === message.id)) return false;
  return current.resolvedAt === null || Date.parse(message.createdAt) > Date.parse(current.resolvedAt);
}

function withoutTyping(typing: TypingAgent[], agentId: string | null): TypingAgent[] {
  return agentId && typing.some((t) => t.agentId === agentId) ? typing.filter((t) => t.agentId !== agentId) : typing;
}

function loaded(state: ChatState, c: Conversation | null, requestedAt: number): ChatState {
  // No open conversation on the server: keep one the hub told us about meanwhile.
  if (!c) return state;
  const current = state.conversation;
  if (current && current.id !== c.id && Date.parse(current.createdAt) > Date.parse(c.createdAt)) return state;
  if (!current || current.id !== c.id) {
    return { ...state, conversation: info(c), messages: mergeMessages([], c.messages) };
  }
  const conversation = refreshed(current, c, requestedAt);
  // A catch-up (after a reconnect) of the conversation already shown: what it adds is new.
  const unread = unreadAfter(state, state.messages, c.messages);
  return { ...state, conversation, messages: mergeMessages(state.messages, c.messages), unread };
}

function created(state: ChatState, { conversationId, message }: MessageCreated): ChatState {
  const current = state.conversation;
  const byAgent = message.kind === "outgoing";
  const typing = byAgent ? withoutTyping(state.typing, message.authorAgentId) : state.typing;
  const agentsOnline = state.agentsOnline || (byAgent && message.authorAgentId !== null);
  if (current?.id === conversationId) {
    // The same conversation continues, reopened when the visitor writes after its resolution.
    const conversation = reopensWith(current, message, state.messages) ? reopened(current) : current;
    const unread = unreadAfter(state, state.messages, [message]);
    return { ...state, conversation, messages: mergeMessages(state.messages, [message]), typing, agentsOnline, unread };
  }
  // A late event of an older conversation.
  if (current && Date.parse(message.createdAt) < Date.parse(current.createdAt)) return state;
  // The first message, or a new conversation (the last one was resolved more than 7 days ago).
  return {
    ...state,
    conversation: {
      id: conversationId,
      number: null,
      status: "open",
      createdAt: message.createdAt,
      resolvedAt: null,
      rating: null,
      askForRating: false,
    },
    messages: [message],
    typing,
    agentsOnline,
    unread: unreadAfter(state, [], [message]),
  };
}

export function reducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "session":
      if (action.reason === "renew" && state.session) {
        return { ...state, session: action.session, agentsOnline: action.session.agentsOnline, error: null };
      }
      return {
        ...initialState,
        session: action.session,
        agentsOnline: action.session.agentsOnline,
        generation: state.generation + 1,
        panelOpen: state.panelOpen,
      };
    case "conversationLoaded":
      return loaded(state, action.conversation, action.requestedAt);
    case "messageCreated":
      return created(state, action.event);
    case "conversationUpdated": {
      const current = state.conversation;
      if (current?.id !== action.event.id) return state;
      const { status } = action.event;
      // Resolved: whether to ask for a rating comes with the next snapshot (the event does not say).
      const reopens = current.status === "resolved" && status !== "resolved";
      const conversation = reopens ? reopened(current, status) : { ...current, status };
      return { ...state, conversation: { ...conversation, statusAt: action.at } };
    }
    case "typing": {
      const { by, agentId, isTyping, displayName } = action.event;
      if (by !== "agent" || !agentId) return state;
      const others = withoutTyping(state.typing, agentId);
      if (!isTyping) return { ...state, typing: others };
      return {
        ...state,
        typing: [...others, { agentId, displayName: displayName || "An agent", at: action.now }],
        agentsOnline: true,
      };
    }
    case "typingExpired": {
      // An agent who stops without saying so stops "typing" after TYPING_TTL_MS.
      const typing = state.typing.filter((t) => typingFresh(t.at, action.now));
      return typing.length === state.typing.length ? state : { ...state, typing };
    }
    case "connection":
      return state.connection === action.status ? state : { ...state, connection: action.status };
    case "error":
      return state.error === action.message ? state : { ...state, error: action.message };
    case "blocked":
      return { ...state, blockedUntil: action.until };
    case "contactSaved":
      return { ...state, contact: action.contact };
    case "availabilityLoaded": {
      const { availability, requestedAt } = action;
      if (state.availability && state.availability.requestedAt > requestedAt) return state;
      const { open, changesAt, typicalReplySeconds } = availability;
      return { ...state, availability: { open, changesAt, typicalReplySeconds, requestedAt } };
    }
    case "rated": {
      // Reopened meanwhile: the rating was of a resolution that is past.
      const current = state.conversation;
      if (current?.status !== "resolved") return state;
      const { rating, comment } = action.rating;
      return { ...state, conversation: { ...current, rating: { rating, comment }, askForRating: false } };
    }
    case "panel":
      return { ...state, panelOpen: action.open, unread: action.open ? 0 : state.unread };
  }
}

/**
 * The visitor's message with this body that is not among the ids `known` before the send began:
 * proof that a send whose answer was lost (the connection dropped) arrived all the same.
 */
export function sentMessage(conversation: Conversation | null, body: string, known: Set<string>): Message | null {
  const text = body.trim();
  return conversation?.messages.find((m) => m.kind === "incoming" && !known.has(m.id) && m.body.trim() === text) ?? null;
}

/**
 * What the away notice says, or null when there is none (open, or not known yet): outside
 * business hours it asks for an email address, or names the one the visitor left.
 */
export function awayNotice(state: ChatState): { email: string | null } | null {
  if (state.availability?.open !== false) return null;
  return { email: state.contact?.email || null };
}

/** How long a first reply usually takes, in seconds of business time, while the team is in; else null. */
export function typicalReply(state: ChatState): number | null {
  const availability = state.availability;
  return availability?.open ? availability.typicalReplySeconds : null;
}

/** "Ana is typing…", "Ana and Ben are typing…", or null. */
export function typingText(typing: TypingAgent[]): string | null {
  const names = [...new Set(typing.map((t) => t.displayName))];
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return "Several agents are typing…";
}
