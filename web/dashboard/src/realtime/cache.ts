// Folding server events into the query cache: one function per kind of change, each applying
// the pure reducers (./reducers) to every cached query that shows it, and asking again
// (invalidating) a list that should now hold something it has never seen. Used for live hub
// events and for entries of the event log alike (./eventLog maps one to the other), so the two
// paths change the cache the same way. No React: tests run it on a bare QueryClient.

import type { QueryClient, QueryKey } from "@tanstack/react-query";
import { keys, type TicketFilter } from "@/api/keys";
import type { Agent, AgentList, Comment, CommentList, Contact, Conversation, Profile, Rating, Ticket } from "@/api/types";
import type { LoggedHubEvent, MessageCreated, PresenceChanged, TypingEvent } from "./events";
import {
  applyMessageToList,
  applyRatingToList,
  appendComment,
  appendMessage,
  applyPresence,
  applyTyping,
  type ConversationPages,
  holdsConversation,
  type InboxFilter,
  mergeProfile,
  type MessagePages,
  replaceContactIn,
  replaceContactInList,
  replaceConversation,
  replaceRequesterIn,
  replaceRequesterInList,
  replaceTicket,
  type TicketPages,
  withMessage,
  withRating,
  typingEndedByMessage,
  type TypingState,
  upsertAgent,
  upsertConversation,
  upsertTicket,
} from "./reducers";

/** Where events are folded: the workspace, who is signed in, and the conversation on screen. */
export interface FoldContext {
  ws: string;
  meId: string | null;
  openConversationId: string | null;
}

/** The 4th element of a list's key: its filter (inbox tab and status, ticket filter, agent status). */
function filterOf<F>(key: QueryKey): F | null {
  const filter = key[3];
  return filter !== undefined && filter !== null ? (filter as F) : null;
}

/**
 * The cached lists under `prefix` with their data, but for those already invalidated: they are
 * to be fetched again, and data set on them now would clear that mark (a list not on screen
 * would then show, when it comes back, what it missed).
 */
function listsToFold<T>(queryClient: QueryClient, prefix: QueryKey): [QueryKey, T | undefined][] {
  return queryClient.getQueriesData<T>({ queryKey: prefix, predicate: (q) => !q.state.isInvalidated });
}

/** `updater` applied to the query at `key` unless it is invalidated (see listsToFold). */
function foldInto<T>(queryClient: QueryClient, key: QueryKey, updater: (data: T | undefined) => T | undefined): void {
  if (queryClient.getQueryState(key)?.isInvalidated) return;
  queryClient.setQueryData<T>(key, updater);
}

function withoutSeq<T extends { seq: number }>(payload: T): Omit<T, "seq"> {
  const copy: Partial<T> = { ...payload };
  delete copy.seq;
  return copy as Omit<T, "seq">;
}

export function foldConversation(queryClient: QueryClient, ctx: FoldContext, conversation: Conversation): void {
  queryClient.setQueryData<Conversation>(keys.conversation(ctx.ws, conversation.id), (current) =>
    current ? replaceConversation(current, conversation) : current,
  );
  for (const [key, data] of listsToFold<ConversationPages>(queryClient, keys.conversations(ctx.ws))) {
    const filter = filterOf<InboxFilter>(key);
    if (filter) queryClient.setQueryData(key, upsertConversation(data, conversation, filter, ctx.meId));
  }
}

export function foldMessage(queryClient: QueryClient, ctx: FoldContext, event: MessageCreated): void {
  const { ws } = ctx;
  foldInto<MessagePages>(queryClient, keys.messages(ws, event.conversationId), (data) => appendMessage(data, event));
  queryClient.setQueryData<TypingState>(keys.typing(ws), (s) => typingEndedByMessage(s ?? {}, event));
  const known = knownConversation(queryClient, ws, event.conversationId);
  for (const [key, data] of listsToFold<ConversationPages>(queryClient, keys.conversations(ws))) {
    const filter = filterOf<InboxFilter>(key);
    if (holdsConversation(data, event.conversationId)) {
      queryClient.setQueryData(key, applyMessageToList(data, event, ctx.openConversationId));
    } else if (known && filter) {
      // Known elsewhere: added here if it belongs (with its new activity), else nothing to do.
      queryClient.setQueryData(key, upsertConversation(data, withMessage(known, event, ctx.openConversationId), filter, ctx.meId));
    } else {
      // A conversation this tab has not seen (an older one that woke up): ask again.
      void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
  }
}

/**
 * A customer's rating, on the conversation wherever this tab shows it: its own record and the
 * inbox lists holding it. A rating changes no status, assignee or activity time, so it moves
 * the conversation into or out of no list, and no list needs to ask again.
 */
export function foldRating(queryClient: QueryClient, ctx: FoldContext, conversationId: string, rating: Rating): void {
  queryClient.setQueryData<Conversation>(keys.conversation(ctx.ws, conversationId), (current) => (current ? withRating(current, rating) : current));
  for (const [key, data] of listsToFold<ConversationPages>(queryClient, keys.conversations(ctx.ws))) {
    queryClient.setQueryData(key, applyRatingToList(data, conversationId, rating));
  }
}

/** A conversation's record as this tab knows it (its own query, or any inbox list), or null. */
function knownConversation(queryClient: QueryClient, ws: string, id: string): Conversation | null {
  const record = queryClient.getQueryData<Conversation>(keys.conversation(ws, id));
  if (record) return record;
  for (const [, data] of queryClient.getQueriesData<ConversationPages>({ queryKey: keys.conversations(ws) })) {
    const found = data?.pages.flatMap((p) => p.conversations).find((c) => c.id === id);
    if (found) return found;
  }
  return null;
}

/** A contact's new name or addresses, wherever a conversation or a ticket shows that contact. */
export function foldContact(queryClient: QueryClient, ctx: FoldContext, contact: Contact): void {
  for (const [key, data] of listsToFold<ConversationPages>(queryClient, keys.conversations(ctx.ws))) {
    queryClient.setQueryData(key, replaceContactInList(data, contact));
  }
  for (const [key, data] of queryClient.getQueriesData<Conversation>({ queryKey: keys.conversationRecords(ctx.ws) })) {
    if (data) queryClient.setQueryData(key, replaceContactIn(data, contact));
  }
  for (const [key, data] of listsToFold<TicketPages>(queryClient, keys.tickets(ctx.ws))) {
    queryClient.setQueryData(key, replaceRequesterInList(data, contact));
  }
  for (const [key, data] of queryClient.getQueriesData<Ticket>({ queryKey: keys.ticketRecords(ctx.ws) })) {
    if (data) queryClient.setQueryData(key, replaceRequesterIn(data, contact));
  }
}

export function foldTicket(queryClient: QueryClient, ctx: FoldContext, ticket: Ticket): void {
  queryClient.setQueryData<Ticket>(keys.ticket(ctx.ws, ticket.id), (current) => (current ? replaceTicket(current, ticket) : current));
  for (const [key, data] of listsToFold<TicketPages>(queryClient, keys.tickets(ctx.ws))) {
    const filter = filterOf<TicketFilter>(key);
    if (filter) queryClient.setQueryData(key, upsertTicket(data, ticket, filter, ctx.meId));
  }
}

export function foldTicketComment(queryClient: QueryClient, ctx: FoldContext, ticketId: string, comment: Comment): void {
  foldInto<CommentList>(queryClient, keys.comments(ctx.ws, ticketId), (data) => appendComment(data, comment));
}

export function foldAgent(queryClient: QueryClient, ctx: FoldContext, agent: Agent): void {
  for (const [key, data] of listsToFold<AgentList>(queryClient, keys.allAgents(ctx.ws))) {
    const status = filterOf<"active" | "all">(key);
    if (status === "active" || status === "all") queryClient.setQueryData(key, upsertAgent(data, agent, status));
  }
  queryClient.setQueryData<Profile>(keys.profile(ctx.ws), (profile) => mergeProfile(profile, agent));
}

/** The presence the cached agent lists show for `agentId`; offline when none does. */
function knownPresence(queryClient: QueryClient, ctx: FoldContext, agentId: string): Agent["presence"] {
  for (const [, data] of listsToFold<AgentList>(queryClient, keys.allAgents(ctx.ws))) {
    const known = data?.agents.find((a) => a.id === agentId);
    if (known) return known.presence;
  }
  return "offline";
}

export function foldPresence(queryClient: QueryClient, ctx: FoldContext, event: PresenceChanged): void {
  for (const [key, data] of listsToFold<AgentList>(queryClient, keys.allAgents(ctx.ws))) {
    if (data && !data.agents.some((a) => a.id === event.agentId)) {
      // Someone this list has not seen yet (they just joined): ask again.
      void queryClient.invalidateQueries({ queryKey: key, exact: true });
    } else {
      queryClient.setQueryData(key, applyPresence(data, event));
    }
  }
}

export function foldTyping(queryClient: QueryClient, ctx: FoldContext, event: TypingEvent, now: number): void {
  queryClient.setQueryData<TypingState>(keys.typing(ctx.ws), (s) => applyTyping(s ?? {}, event, now));
}

/** A hub event of a logged change (live, or mapped from the log), folded into the cache. */
export function applyLoggedHubEvent(queryClient: QueryClient, ctx: FoldContext, event: LoggedHubEvent): void {
  switch (event.name) {
    case "MessageCreated":
      return foldMessage(queryClient, ctx, { conversationId: event.payload.conversationId, message: event.payload.message });
    case "ConversationCreated":
    case "ConversationUpdated":
      return foldConversation(queryClient, ctx, withoutSeq(event.payload));
    case "ConversationRated":
      return foldRating(queryClient, ctx, event.payload.conversationId, event.payload.rating);
    case "ContactCreated":
      // Nothing shows a contact before a conversation or a ticket does (their events bring it).
      return;
    case "ContactUpdated":
      return foldContact(queryClient, ctx, withoutSeq(event.payload));
    case "TicketCreated":
    case "TicketUpdated":
      return foldTicket(queryClient, ctx, withoutSeq(event.payload));
    case "TicketCommentCreated":
      return foldTicketComment(queryClient, ctx, event.payload.ticketId, event.payload.comment);
    case "AgentUpdated": {
      // The log does not carry presence (PresenceChanged does): keep what the lists show.
      const p = event.payload;
      return foldAgent(queryClient, ctx, {
        id: p.id,
        userId: p.userId,
        email: p.email,
        fullName: p.fullName,
        displayName: p.displayName,
        avatarUrl: p.avatarUrl,
        role: p.role,
        status: p.status,
        joinedAt: p.joinedAt,
        presence: knownPresence(queryClient, ctx, p.id),
      });
    }
  }
}

/** Every query of the workspace refetched (a fresh load), but for client-only live state. */
export function reloadWorkspace(queryClient: QueryClient, ws: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: keys.workspace(ws), predicate: (q) => q.queryKey[2] !== "live" });
}
