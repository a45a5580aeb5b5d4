// The inbox's tab and filters live in the URL's query
// (`?tab=unassigned&status=open&label=<id>&channel=email&priority=urgent&unread=1&contact=<id>`,
// `?agent=<id>` for one agent's conversations, `&created_from=2026-11-01&created_to=2026-11-28`
// and `updated_from`/`updated_to` for days), the selected conversation in its path
// (`/inbox/{id}`), so a reload or a shared link shows exactly what was there. A saved view is
// the same filters kept by the API (`InboxFilters`): `viewFilters` and `viewFromFilters`
// translate between the two. Pure (but for the agent's time zone, which says when a day
// starts): parsing never throws, and defaults are left out of the URL and of a view's filters.

import type { Channel, ConversationStatus, InboxFilters, Priority } from "@/api/types";
import { CHANNELS, CONVERSATION_STATUSES, PRIORITIES } from "@/api/types";
import { dayBefore, dayEnd, dayOf, dayStart, isDay } from "./localDay";

export type InboxTab = "me" | "unassigned" | "all";

export interface InboxView {
  tab: InboxTab;
  /**
   * Only this agent's conversations. Set with the All tab alone: Mine and Unassigned already
   * say whose conversations they are.
   */
  agent: string | null;
  status: ConversationStatus | null;
  /** Only this contact's conversations (a contact opened from search). */
  contact: string | null;
  /** Only conversations with this label. */
  label: string | null;
  channel: Channel | null;
  priority: Priority | null;
  /** Only conversations with messages the agent has not read. */
  unread: boolean;
  /** Created on or after this day (`YYYY-MM-DD`, the agent's own calendar). */
  createdFrom: string | null;
  /** Created on or before this day: the whole day is in. */
  createdTo: string | null;
  /** Changed (a message, a status, an assignment) on or after this day. */
  updatedFrom: string | null;
  /** Changed on or before this day. */
  updatedTo: string | null;
}

/** The views' day filters, by the name of their field. */
export type DayFilter = "createdFrom" | "createdTo" | "updatedFrom" | "updatedTo";

const TABS: readonly InboxTab[] = ["me", "unassigned", "all"];
export const DEFAULT_VIEW: InboxView = {
  tab: "all",
  agent: null,
  status: null,
  contact: null,
  label: null,
  channel: null,
  priority: null,
  unread: false,
  createdFrom: null,
  createdTo: null,
  updatedFrom: null,
  updatedTo: null,
};

/** Each day filter's name in the URL, and the other end of its range. */
const DAY_PARAMS: Readonly<Record<DayFilter, { param: string; other: DayFilter }>> = {
  createdFrom: { param: "created_from", other: "createdTo" },
  createdTo: { param: "created_to", other: "createdFrom" },
  updatedFrom: { param: "updated_from", other: "updatedTo" },
  updatedTo: { param: "updated_to", other: "updatedFrom" },
};

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[]): T | null {
  return allowed.includes(value as T) ? (value as T) : null;
}

function id(value: string | null | undefined): string | null {
  return value && ID.test(value) ? value.toLowerCase() : null;
}

/**
 * A range as the API takes it: one that runs backwards would match nothing (and the API refuses
 * it), so its end is dropped and the start kept. Days compare as text: `YYYY-MM-DD` sorts.
 */
function range(from: string | null, to: string | null): [string | null, string | null] {
  return from && to && to < from ? [from, null] : [from, to];
}

export function parseInboxView(query: URLSearchParams): InboxView {
  const tab = oneOf(query.get("tab"), TABS) ?? DEFAULT_VIEW.tab;
  const day = (name: DayFilter) => {
    const value = query.get(DAY_PARAMS[name].param);
    return isDay(value) ? value : null;
  };
  const [createdFrom, createdTo] = range(day("createdFrom"), day("createdTo"));
  const [updatedFrom, updatedTo] = range(day("updatedFrom"), day("updatedTo"));
  return {
    tab,
    // A link naming an agent and Mine or Unassigned asks two things at once: the tab decides.
    agent: tab === "all" ? id(query.get("agent")) : null,
    status: oneOf(query.get("status"), CONVERSATION_STATUSES),
    contact: id(query.get("contact")),
    label: id(query.get("label")),
    channel: oneOf(query.get("channel"), CHANNELS),
    priority: oneOf(query.get("priority"), PRIORITIES),
    unread: query.get("unread") === "1",
    createdFrom,
    createdTo,
    updatedFrom,
    updatedTo,
  };
}

/** The query string for a view ("" or "?tab=me&status=open"). */
export function inboxQuery(view: InboxView): string {
  const query = new URLSearchParams();
  if (view.tab !== DEFAULT_VIEW.tab) query.set("tab", view.tab);
  if (view.agent) query.set("agent", view.agent);
  if (view.status) query.set("status", view.status);
  if (view.contact) query.set("contact", view.contact);
  if (view.label) query.set("label", view.label);
  if (view.channel) query.set("channel", view.channel);
  if (view.priority) query.set("priority", view.priority);
  if (view.unread) query.set("unread", "1");
  for (const name of ["createdFrom", "createdTo", "updatedFrom", "updatedTo"] as const) {
    const value = view[name];
    if (value) query.set(DAY_PARAMS[name].param, value);
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The URL of a conversation (or of the list alone when `conversationId` is null), keeping the view. */
export function inboxHref(view: InboxView, conversationId: string | null): string {
  return `/inbox${conversationId ? `/${conversationId}` : ""}${inboxQuery(view)}`;
}

/** The view with one tab: the tabs say whose conversations they are, so an agent filter goes. */
export function withTab(view: InboxView, tab: InboxTab): InboxView {
  return { ...view, tab, agent: null };
}

/** The view with one agent's conversations (null: the tab decides), shown under All. */
export function withAgent(view: InboxView, agent: string | null): InboxView {
  return agent ? { ...view, tab: "all", agent } : { ...view, agent: null };
}

/**
 * The view with one end of a day range set (or cleared with null). An end that would make the
 * range run backwards clears the other end: the day just picked is what the agent wants.
 */
export function withDay(view: InboxView, name: DayFilter, day: string | null): InboxView {
  const next: InboxView = { ...view };
  next[name] = isDay(day) ? day : null;
  const other = DAY_PARAMS[name].other;
  const [from, to] = name.endsWith("From") ? [next[name], next[other]] : [next[other], next[name]];
  if (from && to && to < from) next[other] = null;
  return next;
}

/** Whether any filter beyond the tab and the contact is set (the "Clear filters" button shows then). */
export function hasFilters(view: InboxView): boolean {
  return inboxQuery(clearFilters(view)) !== inboxQuery(view);
}

/** The view without its filters: the tab and the contact stay (they have their own controls). */
export function clearFilters(view: InboxView): InboxView {
  return { ...DEFAULT_VIEW, tab: view.tab, contact: view.contact };
}

/**
 * `GET /api/conversations`' filters for a view (its page's size and cursor aside): the tab or
 * the agent as `assignee`, and the days as the instants they start and end in the agent's time
 * zone ("to" is exclusive: the next day's start).
 */
export interface ListQuery {
  /** `me`, `unassigned`, `all` or an agent's id. */
  assignee: string;
  status?: ConversationStatus;
  contactId?: string;
  label?: string;
  channel?: Channel;
  priority?: Priority;
  unread?: true;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
}

type InstantFilter = "createdAfter" | "createdBefore" | "updatedAfter" | "updatedBefore";

export function listQuery(view: InboxView): ListQuery {
  const query: ListQuery = { assignee: view.agent ?? view.tab };
  if (view.status) query.status = view.status;
  if (view.contact) query.contactId = view.contact;
  if (view.label) query.label = view.label;
  if (view.channel) query.channel = view.channel;
  if (view.priority) query.priority = view.priority;
  if (view.unread) query.unread = true;
  const instants: [InstantFilter, string | null][] = [
    ["createdAfter", view.createdFrom && dayStart(view.createdFrom)],
    ["createdBefore", view.createdTo && dayEnd(view.createdTo)],
    ["updatedAfter", view.updatedFrom && dayStart(view.updatedFrom)],
    ["updatedBefore", view.updatedTo && dayEnd(view.updatedTo)],
  ];
  for (const [name, at] of instants) if (at) query[name] = at;
  return query;
}

/** The filters a saved view keeps for what the inbox shows (a contact's list is not a view). */
export function viewFilters(view: InboxView): InboxFilters {
  const { assignee, ...filters } = listQuery({ ...view, contact: null });
  return assignee === "all" ? filters : { assignee, ...filters };
}

/**
 * A range the API keeps as instants, as the days the inbox shows: the day holding "after", and
 * the last day before "before" (a local midnight reads as the day it ends). A view saved
 * through the API with other times shows as the days they fall in. Undefined when an instant
 * cannot be read.
 */
function daysOf(after: string | null | undefined, before: string | null | undefined): [string | null, string | null] | undefined {
  const from = after ? dayOf(after) : null;
  const to = before ? dayBefore(before) : null;
  if ((after && !from) || (before && !to)) return undefined;
  return range(from, to);
}

/**
 * What the inbox shows for a saved view's filters, or null when they hold one it cannot show
 * (an assignee or a time it cannot read: the API checks both, so none it saved).
 */
export function viewFromFilters(filters: InboxFilters): InboxView | null {
  const assignee = filters.assignee ?? "all";
  const tab = oneOf(assignee, TABS);
  const agent = tab ? null : id(assignee);
  const created = daysOf(filters.createdAfter, filters.createdBefore);
  const updated = daysOf(filters.updatedAfter, filters.updatedBefore);
  if ((!tab && !agent) || !created || !updated) return null;
  return {
    tab: tab ?? "all",
    agent,
    status: filters.status ?? null,
    contact: null,
    label: id(filters.label),
    channel: filters.channel ?? null,
    priority: filters.priority ?? null,
    unread: filters.unread === true,
    createdFrom: created[0],
    createdTo: created[1],
    updatedFrom: updated[0],
    updatedTo: updated[1],
  };
}

/** Whether the inbox shows exactly this saved view. */
export function showsView(view: InboxView, filters: InboxFilters): boolean {
  const shown = viewFromFilters(filters);
  return shown !== null && view.contact === null && inboxQuery(shown) === inboxQuery(view);
}
