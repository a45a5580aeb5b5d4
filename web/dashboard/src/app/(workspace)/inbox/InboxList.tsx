"use client";

// Conversations by tab (Mine / Unassigned / All, each with its open + pending count), agent,
// status, label, channel, priority, unread and the days they were created or changed, newest
// activity first, kept live by hub events (see realtime/HubProvider). The tab and the filters
// live in the URL (lib/inboxUrl), so a reload or a shared link shows the same list, and a saved
// view (components/views) is a name for them.

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, usePathname, useRouter, useSearchParams } from "next/navigation";
import { type KeyboardEvent, useEffect, useRef } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { CHANNELS, CONVERSATION_STATUSES, type Channel, type Conversation, type ConversationStatus, type Priority } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { Checkbox, ErrorMessage, PresenceBadge, SelectField } from "@/components/ui";
import { Avatar } from "@/components/inbox/Avatar";
import { ChannelMarker } from "@/components/inbox/ChannelMarker";
import { RelativeTime } from "@/components/inbox/RelativeTime";
import { useInboxCounts } from "@/components/inbox/useInboxCounts";
import { useLabels } from "@/components/labels/useLabels";
import { SavedViews } from "@/components/views/SavedViews";
import { useApi } from "@/app/providers";
import { currentLabels, textOn } from "@/lib/labelSet";
import { channelLabel } from "@/lib/email";
import { PRIORITIES_BY_URGENCY, priorityLabel, statusLabel } from "@/lib/labels";
import {
  clearFilters,
  hasFilters,
  inboxHref,
  type InboxTab,
  type InboxView,
  listQuery,
  parseInboxView,
  withAgent,
  withDay,
  withTab,
} from "@/lib/inboxUrl";
import { listKey } from "@/lib/inboxRows";
import { previewText, rowTime } from "@/lib/preview";
import { useWorkspace } from "../WorkspaceContext";
import { AssigneeFilter } from "./AssigneeFilter";
import { DayFilters } from "./DayFilters";

const TABS: { id: InboxTab; label: string; count: "mine" | "unassigned" | "all" }[] = [
  { id: "me", label: "Mine", count: "mine" },
  { id: "unassigned", label: "Unassigned", count: "unassigned" },
  { id: "all", label: "All", count: "all" },
];

export function InboxList() {
  const api = useApi();
  const { workspace, me, isOwner } = useWorkspace();
  const router = useRouter();
  const pathname = usePathname();
  const params = useParams<{ id?: string }>();
  const view = parseInboxView(useSearchParams());
  const selectedId = params.id ?? null;
  const query = listQuery(view);
  const labels = useLabels(workspace.id);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const counts = useInboxCounts(workspace.id);
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Back from a conversation (the phone's back button, or closing it): focus returns to its
  // row, else to the list's heading, rather than to the top of the page.
  const previousId = useRef(selectedId);
  useEffect(() => {
    const left = previousId.current;
    previousId.current = selectedId;
    if (!left || selectedId) return;
    const row = document.querySelector<HTMLAnchorElement>(`[data-conversation-id="${CSS.escape(left)}"]`);
    (row ?? headingRef.current)?.focus();
  }, [selectedId]);

  const show = (next: InboxView) => router.replace(inboxHref(next, selectedId), { scroll: false });

  const list = useInfiniteQuery({
    queryKey: keys.inbox(workspace.id, listKey(view)),
    queryFn: ({ pageParam }) =>
      unwrap(api.workspace.GET("/api/conversations", { params: { query: { ...query, limit: 50, cursor: pageParam ?? undefined } } })),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
    // "Mine" needs to know who "me" is before its events can be sorted into it.
    enabled: view.tab !== "me" || me !== null,
  });
  const conversations = list.data?.pages.flatMap((p) => p.conversations) ?? [];
  const filtered = hasFilters(view);

  // Arrow keys move between tabs (WAI-ARIA tabs pattern, automatic activation).
  const onTabKey = (event: KeyboardEvent, index: number) => {
    const delta = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!delta) return;
    event.preventDefault();
    const next = (index + delta + TABS.length) % TABS.length;
    show(withTab(view, TABS[next]!.id));
    tabRefs.current[next]?.focus();
  };

  return (
    <section className="inbox-list" aria-labelledby="inbox-heading">
      <div className="inbox-list-header">
        <h1 id="inbox-heading" ref={headingRef} tabIndex={-1}>
          Inbox
        </h1>
        <SavedViews workspaceId={workspace.id} view={view} isOwner={isOwner} />
        <div role="tablist" aria-label="Conversations by assignee" className="tabs">
          {TABS.map((tab, index) => {
            const count = counts.data?.[tab.count];
            return (
              <button
                key={tab.id}
                ref={(el) => {
                  tabRefs.current[index] = el;
                }}
                type="button"
                role="tab"
                id={`tab-${tab.id}`}
                aria-selected={view.tab === tab.id}
                aria-controls="conversation-panel"
                tabIndex={view.tab === tab.id ? 0 : -1}
                onClick={() => show(withTab(view, tab.id))}
                onKeyDown={(event) => onTabKey(event, index)}
              >
                {tab.label}
                {count ? (
                  <span className="tab-count" title={`${count.open} open, ${count.pending} pending`}>
                    {" "}
                    {count.open + count.pending}
                    <span className="visually-hidden"> open or pending</span>
                  </span>
                ) : null}
              </button>
            );
          })}
        </div>
        <AssigneeFilter workspaceId={workspace.id} agentId={view.agent} meId={me?.id ?? null} onChange={(agent) => show(withAgent(view, agent))} />
        <SelectField
          label="Status"
          value={view.status ?? ""}
          onChange={(event) => show({ ...view, status: (event.target.value || null) as ConversationStatus | null })}
        >
          <option value="">Any status</option>
          {CONVERSATION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </SelectField>
        {labels.data && (labels.data.labels.length > 0 || view.label) ? (
          <SelectField label="Label" value={view.label ?? ""} onChange={(event) => show({ ...view, label: event.target.value || null })}>
            <option value="">Any label</option>
            {labels.data.labels.map((label) => (
              <option key={label.id} value={label.id}>
                {label.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        <SelectField label="Channel" value={view.channel ?? ""} onChange={(event) => show({ ...view, channel: (event.target.value || null) as Channel | null })}>
          <option value="">Any channel</option>
          {CHANNELS.map((c) => (
            <option key={c} value={c}>
              {channelLabel(c)}
            </option>
          ))}
        </SelectField>
        <SelectField label="Priority" value={view.priority ?? ""} onChange={(event) => show({ ...view, priority: (event.target.value || null) as Priority | null })}>
          <option value="">Any priority</option>
          {PRIORITIES_BY_URGENCY.map((p) => (
            <option key={p} value={p}>
              {priorityLabel(p)}
            </option>
          ))}
        </SelectField>
        <Checkbox label="Unread only" checked={view.unread} onChange={(event) => show({ ...view, unread: event.target.checked })} />
        <DayFilters view={view} onChange={(name, day) => show(withDay(view, name, day))} />
        {filtered ? (
          <button
            type="button"
            className="ghost clear-filters"
            onClick={() => {
              show(clearFilters(view));
              // The button goes with the filters: the focus goes to the list's heading, not the page's top.
              headingRef.current?.focus();
            }}
          >
            Clear filters
          </button>
        ) : null}
      </div>
      <div role="tabpanel" id="conversation-panel" aria-labelledby={`tab-${view.tab}`}>
        {view.contact ? (
          <p className="filter-note" role="status">
            One contact&apos;s conversations.{" "}
            <button type="button" className="link" onClick={() => show({ ...view, contact: null })}>
              Show everyone&apos;s
            </button>
          </p>
        ) : null}
        <ErrorMessage error={list.error} />
        {list.isPending && !list.isError ? <p role="status">Loading conversations…</p> : null}
        {list.isSuccess && conversations.length === 0 ? (
          <p className="muted">{filtered ? "No conversations match these filters." : "No conversations here yet."}</p>
        ) : null}
        <ul className="conversation-list" aria-label="Conversations">
          {conversations.map((c) => (
            <ConversationRow key={c.id} conversation={c} href={inboxHref(view, c.id)} current={pathname === `/inbox/${c.id}`} workspaceId={workspace.id} />
          ))}
        </ul>
        {list.hasNextPage ? (
          <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            Load more conversations
          </button>
        ) : null}
      </div>
      <TeamPresence workspaceId={workspace.id} />
    </section>
  );
}

function ConversationRow({ conversation: c, href, current, workspaceId }: { conversation: Conversation; href: string; current: boolean; workspaceId: string }) {
  const agents = useAgentNames(workspaceId);
  const unread = current ? 0 : (c.unreadCount ?? 0);
  const assigneeName = c.assigneeId ? (agents.get(c.assigneeId)?.displayName ?? "an agent") : null;
  const preview = previewText(c.lastMessage);
  return (
    <li className={unread ? "conversation-row unread" : "conversation-row"}>
      <Link href={href} aria-current={current ? "page" : undefined} data-conversation-id={c.id}>
        <Avatar id={c.contact.id} name={c.contact.displayName} />
        <span className="row-main">
          <span className="row-top">
            <span className="row-name">{c.contact.displayName}</span>
            <RelativeTime iso={rowTime(c)} className="row-time" />
          </span>
          <span className="row-preview">
            <span className="preview">{preview || (c.subject ?? "No messages yet")}</span>
            {unread ? (
              <span className="unread-count">
                {unread >= 100 ? "99+" : unread}
                <span className="visually-hidden"> unread</span>
              </span>
            ) : null}
          </span>
          <span className="row-meta">
            <span className="number">#{c.number}</span>
            <ChannelMarker channel={c.channel} />
            <span className={`badge status-${c.status}`}>{statusLabel(c.status)}</span>
            {c.priority ? <span className="badge">{priorityLabel(c.priority)}</span> : null}
            <span className="muted">{assigneeName ?? "Unassigned"}</span>
          </span>
          <RowLabels workspaceId={workspaceId} conversation={c} />
        </span>
      </Link>
    </li>
  );
}

/** The row's labels as chips (spans: the row is one link). */
function RowLabels({ workspaceId, conversation }: { workspaceId: string; conversation: Conversation }) {
  const labels = useLabels(workspaceId);
  const shown = currentLabels(conversation.labels ?? [], labels.data?.labels);
  if (shown.length === 0) return null;
  return (
    <span className="row-labels">
      <span className="visually-hidden">Labels: </span>
      {shown.map((label) => (
        <span key={label.id} className="label-chip" style={{ background: label.color, color: textOn(label.color) }}>
          {label.name}
        </span>
      ))}
    </span>
  );
}

function TeamPresence({ workspaceId }: { workspaceId: string }) {
  const agents = useAgents(workspaceId);
  if (!agents.data) return null;
  return (
    <section aria-labelledby="presence-heading" className="presence-panel">
      <h2 id="presence-heading">Team</h2>
      <ul aria-label="Agents' presence">
        {agents.data.agents.map((a) => (
          <li key={a.id}>
            {a.displayName} <PresenceBadge presence={a.presence} />
          </li>
        ))}
      </ul>
    </section>
  );
}
