// Whether a live event deserves the agent's attention, and what the tab title says: pure
// decisions, so the rules are tested without a browser. The hook (./useNotifications) feeds
// them live hub events and carries out the answer (a desktop notification, a tone, a title).
//
// The rules: a new chat (a visitor started it) and an incoming message in a conversation that
// is mine or unassigned notify; a private note naming me (`@<my display name>`) notifies;
// nothing I did myself notifies, and neither does the conversation I am looking at in a
// visible tab. A conversation started by hand (an agent or the API) is not news to the team.

import type { Conversation, Profile } from "@/api/types";
import type { HubConversation, HubMessageCreated } from "@/realtime/events";

/** The live events that may notify, as the hub names them. */
export type NotifiableEvent =
  | { name: "ConversationCreated"; payload: HubConversation }
  | { name: "MessageCreated"; payload: HubMessageCreated };

/** Who is looking, and at what. */
export interface Viewer {
  meId: string | null;
  myDisplayName: string | null;
  /** The conversation on screen (the `/inbox/{id}` route), if any. */
  openConversationId: string | null;
  /** `document.visibilityState === "visible"`. */
  tabVisible: boolean;
}

export type AlertKind = "new-conversation" | "message" | "mention";

export interface Alert {
  kind: AlertKind;
  conversationId: string;
  title: string;
  body: string;
}

/** Enough of a conversation to decide: who handles it and who it is with. */
export type ConversationFacts = Pick<Conversation, "assigneeId" | "contact">;

const PREVIEW_LENGTH = 140;

function preview(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_LENGTH ? `${flat.slice(0, PREVIEW_LENGTH - 1)}…` : flat;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether `body` names `displayName` as a mention: `@` and the whole name, any case, not
 * followed by a letter or digit ("@Ann" is not "@Anna").
 */
export function mentions(body: string, displayName: string | null): boolean {
  const name = displayName?.trim();
  if (!name) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}_])@${escapeRegExp(name)}(?![\\p{L}\\p{N}_])`, "iu").test(body);
}

/**
 * What to tell the viewer about `event`, or null. `conversation` is the conversation a message
 * belongs to as this tab knows it (null when unknown: then an incoming message is not claimed
 * as mine or unassigned, and only a mention notifies).
 */
export function alertFor(event: NotifiableEvent, conversation: ConversationFacts | null, viewer: Viewer): Alert | null {
  const conversationId = event.name === "ConversationCreated" ? event.payload.id : event.payload.conversationId;
  if (viewer.tabVisible && viewer.openConversationId === conversationId) return null;
  if (event.name === "ConversationCreated") {
    const created = event.payload;
    if (created.channel !== "chat") return null;
    if (created.assigneeId && created.assigneeId !== viewer.meId) return null;
    return { kind: "new-conversation", conversationId, title: "New conversation", body: `${created.contact.displayName} started a chat` };
  }
  const { message } = event.payload;
  if (message.authorAgentId && message.authorAgentId === viewer.meId) return null;
  if (message.kind === "note") {
    if (!mentions(message.body, viewer.myDisplayName)) return null;
    const who = message.author?.displayName ?? "A teammate";
    return { kind: "mention", conversationId, title: `${who} mentioned you`, body: preview(message.body) };
  }
  if (message.kind !== "incoming" || !conversation) return null;
  const assignee = conversation.assigneeId ?? null;
  if (assignee !== null && assignee !== viewer.meId) return null;
  return { kind: "message", conversationId, title: conversation.contact.displayName, body: preview(message.body) };
}

/**
 * How the alert is delivered, given the agent's preferences and the browser's permission. The
 * tone is for conversations (new chats, messages), as the preference says; a mention only
 * shows a desktop notification.
 */
export function deliveryFor(
  kind: AlertKind,
  preferences: Pick<Profile["notificationPreferences"], "desktop" | "sound">,
  permission: NotificationPermission | "unsupported",
): { desktop: boolean; sound: boolean } {
  return { desktop: preferences.desktop && permission === "granted", sound: preferences.sound && kind !== "mention" };
}

/** At most one tone per this many milliseconds: a new chat and its first message ring once. */
export const TONE_INTERVAL_MS = 1500;

export function shouldRing(lastRangAt: number | null, now: number): boolean {
  return lastRangAt === null || now - lastRangAt >= TONE_INTERVAL_MS;
}

/**
 * Whether to offer "Enable desktop notifications": the browser can, the agent wants desktop
 * notifications, and has neither answered the browser's question nor dismissed the offer.
 */
export function offerPermission(permission: NotificationPermission | "unsupported", desktopWanted: boolean, dismissed: boolean): boolean {
  return permission === "default" && desktopWanted && !dismissed;
}

// ---- the tab title ---------------------------------------------------------------------------

const UNREAD_PREFIX = /^\(\d+\+?\) /;

/** "Inbox · Support Desk" with 3 unread -> "(3) Inbox · Support Desk"; 0 -> no prefix. */
export function titleWithUnread(title: string, unread: number): string {
  const bare = title.replace(UNREAD_PREFIX, "");
  if (unread <= 0) return bare;
  return `(${unread > 99 ? "99+" : unread}) ${bare}`;
}

/**
 * Unread incoming messages over the given conversation lists (Mine and Unassigned), each
 * conversation counted once; `reading` (the conversation on screen in a visible tab) counts
 * none, as it is being read while the server learns so.
 */
export function unreadTotal(lists: readonly (readonly Pick<Conversation, "id" | "unreadCount">[])[], reading: string | null = null): number {
  const seen = new Map<string, number>();
  for (const list of lists) for (const c of list) seen.set(c.id, c.id === reading ? 0 : Math.max(0, c.unreadCount ?? 0));
  let total = 0;
  for (const count of seen.values()) total += count;
  return total;
}

/** The conversation id of an `/inbox/{id}` path, else null. */
export function openConversationFromPath(pathname: string | null): string | null {
  const match = /^\/inbox\/([^/]+)\/?$/.exec(pathname ?? "");
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}
