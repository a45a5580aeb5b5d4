// The inbox's tab and filters live in the URL's query
// (`?tab=unassigned&status=open&label=<id>&channel=email&priority=urgent&unread=1&contact=<id>`),
// the selected conversation in its path (`/inbox/{id}`), so a reload or a shared link shows
// exactly what was there. A saved view is the same filters kept by the API (`InboxFilters`):
// `viewFilters` and `viewFromFilters` translate between the two. Pure: parsing never throws,
// and defaults are left out of the URL and of a view's filters.

import type { Channel, ConversationStatus, InboxFilters, Priority } from "@/api/types";
import { CHANNELS, CONVERSATION_STATUSES, PRIORITIES } from "@/api/types";

export type InboxTab = "me" | "unassigned" | "all";

export interface InboxView {
  tab: InboxTab;
  status: ConversationStatus | null;
  /** Only this contact's conversations (a contact opened from search). */
  contact: string | null;
  /** Only conversations with this label. */
  label: string | null;
  channel: Channel | null;
  priority: Priority | null;
  /** Only conversations with messages the agent has not read. */
  unread: boolean;
}

const TABS: readonly InboxTab[] = ["me", "unassigned", "all"];
export const DEFAULT_VIEW: InboxView = { tab: "all", status: null, contact: null, label: null, channel: null, priority: null, unread: false };

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[]): T | null {
  return allowed.includes(value as T) ? (value as T) : null;
}

function id(value: string | null | undefined): string | null {
  return value && ID.test(value) ? value.toLowerCase() : null;
}

export function parseInboxView(query: URLSearchParams): InboxView {
  return {
    tab: oneOf(query.get("tab"), TABS) ?? DEFAULT_VIEW.tab,
    status: oneOf(query.get("status"), CONVERSATION_STATUSES),
    contact: id(query.get("contact")),
    label: id(query.get("label")),
    channel: oneOf(query.get("channel"), CHANNELS),
    priority: oneOf(query.get("priority"), PRIORITIES),
    unread: query.get("unread") === "1",
  };
}

/** The query string for a view ("" or "?tab=me&status=open"). */
export function inboxQuery(view: InboxView): string {
  const query = new URLSearchParams();
  if (view.tab !== DEFAULT_VIEW.tab) query.set("tab", view.tab);
  if (view.status) query.set("status", view.status);
  if (view.contact) query.set("contact", view.contact);
  if (view.label) query.set("label", view.label);
  if (view.channel) query.set("channel", view.channel);
  if (view.priority) query.set("priority", view.priority);
  if (view.unread) query.set("unread", "1");
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The URL of a conversation (or of the list alone when `conversationId` is null), keeping the view. */
export function inboxHref(view: InboxView, conversationId: string | null): string {
  return `/inbox${conversationId ? `/${conversationId}` : ""}${inboxQuery(view)}`;
}

/** The filters a saved view keeps for what the inbox shows (a contact's list is not a view). */
export function viewFilters(view: InboxView): InboxFilters {
  const filters: InboxFilters = {};
  if (view.tab !== "all") filters.assignee = view.tab;
  if (view.status) filters.status = view.status;
  if (view.label) filters.label = view.label;
  if (view.channel) filters.channel = view.channel;
  if (view.priority) filters.priority = view.priority;
  if (view.unread) filters.unread = true;
  return filters;
}

/**
 * What the inbox shows for a saved view's filters, or null when they hold one it cannot show
 * (an agent other than "me", a date range: views an integration saved through the API).
 */
export function viewFromFilters(filters: InboxFilters): InboxView | null {
  const assignee = filters.assignee ?? "all";
  const tab = oneOf(assignee, TABS);
  if (!tab || filters.createdAfter || filters.createdBefore || filters.updatedAfter || filters.updatedBefore) return null;
  return {
    tab,
    status: filters.status ?? null,
    contact: null,
    label: id(filters.label),
    channel: filters.channel ?? null,
    priority: filters.priority ?? null,
    unread: filters.unread === true,
  };
}

/** Whether the inbox shows exactly this saved view. */
export function showsView(view: InboxView, filters: InboxFilters): boolean {
  const shown = viewFromFilters(filters);
  return shown !== null && view.contact === null && inboxQuery(shown) === inboxQuery(view);
}
