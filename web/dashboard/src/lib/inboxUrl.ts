// The inbox's tab and status filter live in the URL's query (`?tab=unassigned&status=open`),
// the selected conversation in its path (`/inbox/{id}`), so a reload or a shared link shows
// exactly what was there. Pure: parsing never throws, and defaults are left out of the URL.

import type { ConversationStatus } from "@/api/types";
import { CONVERSATION_STATUSES } from "@/api/types";

export type InboxTab = "me" | "unassigned" | "all";

export interface InboxView {
  tab: InboxTab;
  status: ConversationStatus | null;
}

const TABS: readonly InboxTab[] = ["me", "unassigned", "all"];
export const DEFAULT_VIEW: InboxView = { tab: "all", status: null };

export function parseInboxView(query: URLSearchParams): InboxView {
  const tab = query.get("tab");
  const status = query.get("status");
  return {
    tab: TABS.includes(tab as InboxTab) ? (tab as InboxTab) : DEFAULT_VIEW.tab,
    status: CONVERSATION_STATUSES.includes(status as ConversationStatus) ? (status as ConversationStatus) : null,
  };
}

/** The query string for a view ("" or "?tab=me&status=open"). */
export function inboxQuery(view: InboxView): string {
  const query = new URLSearchParams();
  if (view.tab !== DEFAULT_VIEW.tab) query.set("tab", view.tab);
  if (view.status) query.set("status", view.status);
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The URL of a conversation (or of the list alone when `conversationId` is null), keeping the view. */
export function inboxHref(view: InboxView, conversationId: string | null): string {
  return `/inbox${conversationId ? `/${conversationId}` : ""}${inboxQuery(view)}`;
}
