// How hub events change what the dashboard holds. Pure functions from (cached value, event)
// to the next cached value, returning the same object when nothing changes, so TanStack
// Query re-renders nothing. `HubProvider` applies them to the query cache; the unit tests
// apply them to plain values.

import { typingFresh } from "@supportdesk/shared/typing";
import type { InfiniteData } from "@tanstack/react-query";
import type { Agent, AgentList, Conversation, ConversationList, ConversationStatus, MessageList } from "@/api/types";
import type { MessageCreated, PresenceChanged, TypingEvent } from "./events";

/** The inbox list a cache entry holds: which tab and status filter. */
export interface InboxFilter {
  assignee: "me" | "unassigned" | "all";
  status: ConversationStatus | null;
}

// Page params are cursors; the reducers never read them.
export type ConversationPages = InfiniteData<ConversationList, unknown>;
export type MessagePages = InfiniteData<MessageList, unknown>;

/** Whether a conversation belongs in a list; `meId` is the signed-in agent's id. */
export function belongsTo(conversation: Conversation, filter: InboxFilter, meId: string | null): boolean {
  if (filter.status && conversation.status !== filter.status) return false;
  if (filter.assignee === "unassigned") return conversation.assigneeId == null;
  if (filter.assignee === "me") return meId !== null && conversation.assigneeId === meId;
  return true;
}

function newestFirst(a: Conversation, b: Conversation): number {
  return Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt);
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
  const pages = data.pages.map((page) => ({
    ...page,
    conversations: page.conversations.filter((c) => c.id !== conversation.id),
  }));
  if (belongs) {
    const first = pages[0] ?? { conversations: [], nextCursor: null };
    pages[0] = { ...first, conversations: [conversation, ...first.conversations].sort(newestFirst) };
  }
  return { ...data, pages };
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
 * A new message, appended to the conversation's cached messages (oldest first) once. While
 * later pages are still to load, it is left to them.
 */
export function appendMessage(data: MessagePages | undefined, event: MessageCreated): MessagePages | undefined {
  if (!data) return data;
  if (data.pages.some((p) => p.messages.some((m) => m.id === event.message.id))) return data;
  const lastIndex = data.pages.length - 1;
  const last = data.pages[lastIndex];
  if (!last || last.nextCursor) return data;
  const { id, kind, body, authorAgentId, createdAt } = event.message;
  const pages = [...data.pages];
  pages[lastIndex] = { ...last, messages: [...last.messages, { id, kind, body, authorAgentId, createdAt }] };
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

/** Conversations with messages from visitors that the agent has not opened since. */
export type UnreadState = Readonly<Record<string, true>>;

export function markUnread(state: UnreadState, event: MessageCreated, openConversationId: string | null): UnreadState {
  if (event.message.kind !== "incoming" || event.conversationId === openConversationId) return state;
  if (state[event.conversationId]) return state;
  return { ...state, [event.conversationId]: true };
}

export function markRead(state: UnreadState, conversationId: string): UnreadState {
  if (!state[conversationId]) return state;
  return Object.fromEntries(Object.entries(state).filter(([id]) => id !== conversationId)) as UnreadState;
}

/** The latest message text per conversation, for the inbox list's preview line. */
export type PreviewState = Readonly<Record<string, { body: string; kind: string; at: string }>>;

export function applyPreview(state: PreviewState, event: MessageCreated): PreviewState {
  const current = state[event.conversationId];
  if (current && Date.parse(current.at) > Date.parse(event.message.createdAt)) return state;
  return {
    ...state,
    [event.conversationId]: { body: event.message.body, kind: event.message.kind, at: event.message.createdAt },
  };
}
