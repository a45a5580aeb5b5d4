// The chat page's state lives here, in one place, and every change is a pure fold: REST
// snapshots and hub events arrive in any order and more than once (MessageCreated also echoes
// the visitor's own sends), so messages are merged by id and ordered by createdAt.

import { typingFresh } from "@supportdesk/shared/typing";
import type { SessionReason, WidgetSession } from "@/loader/protocol";
import type { Contact, Conversation, ConversationUpdated, Message, MessageCreated, TypingEvent } from "./types";

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "disconnected";

export type ConversationInfo = Omit<Conversation, "messages" | "number"> & {
  number: number | null;
  /** When (local ms) the hub last told its status; a snapshot requested before then is older. */
  statusAt?: number;
};

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
  return { id: c.id, number: c.number, status: c.status, createdAt: c.createdAt };
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
  // The hub told a status after this snapshot was asked for: the snapshot's is older.
  const live = current.statusAt !== undefined && current.statusAt >= requestedAt;
  const conversation = live ? { ...info(c), status: current.status, statusAt: current.statusAt } : info(c);
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
    const unread = unreadAfter(state, state.messages, [message]);
    return { ...state, messages: mergeMessages(state.messages, [message]), typing, agentsOnline, unread };
  }
  // A late event of an older conversation.
  if (current && Date.parse(message.createdAt) < Date.parse(current.createdAt)) return state;
  // The first message, or a new conversation after the last one was resolved.
  return {
    ...state,
    conversation: { id: conversationId, number: null, status: "open", createdAt: message.createdAt },
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
    case "conversationUpdated":
      return state.conversation?.id === action.event.id
        ? { ...state, conversation: { ...state.conversation, status: action.event.status, statusAt: action.at } }
        : state;
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

/** "Ana is typing…", "Ana and Ben are typing…", or null. */
export function typingText(typing: TypingAgent[]): string | null {
  const names = [...new Set(typing.map((t) => t.displayName))];
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return "Several agents are typing…";
}
