// The inbox's tab, status filter, label and contact live in the URL's query
// (`?tab=unassigned&status=open&label=<id>&contact=<id>`),
// the selected conversation in its path (`/inbox/{id}`), so a reload or a shared link shows
// exactly what was there. Pure: parsing never throws, and defaults are left out of the URL.

import type { ConversationStatus } from "@/api/types";
import { CONVERSATION_STATUSES } from "@/api/types";

export type InboxTab = "me" | "unassigned" | "all";

export interface InboxView {
  tab: InboxTab;
  status: ConversationStatus | null;
  /** Only this contact's conversations (a contact opened from search). */
  contact: string | null;
  /** Only conversations with this label. */
  label: string | null;
}

const TABS: readonly InboxTab[] = ["me", "unassigned", "all"];
export const DEFAULT_VIEW: InboxView = { tab: "all", status: null, contact: null, label: null };

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseInboxView(query: URLSearchParams): InboxView {
  const tab = query.get("tab");
  const status = query.get("status");
  const contact = query.get("contact");
  const label = query.get("label");
  return {
    tab: TABS.includes(tab as InboxTab) ? (tab as InboxTab) : DEFAULT_VIEW.tab,
    status: CONVERSATION_STATUSES.includes(status as ConversationStatus) ? (status as ConversationStatus) : null,
    contact: contact && ID.test(contact) ? contact.toLowerCase() : null,
    label: label && ID.test(label) ? label.toLowerCase() : null,
  };
}

/** The query string for a view ("" or "?tab=me&status=open"). */
export function inboxQuery(view: InboxView): string {
  const query = new URLSearchParams();
  if (view.tab !== DEFAULT_VIEW.tab) query.set("tab", view.tab);
  if (view.status) query.set("status", view.status);
  if (view.contact) query.set("contact", view.contact);
  if (view.label) query.set("label", view.label);
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The URL of a conversation (or of the list alone when `conversationId` is null), keeping the view. */
export function inboxHref(view: InboxView, conversationId: string | null): string {
  return `/inbox${conversationId ? `/${conversationId}` : ""}${inboxQuery(view)}`;
}
