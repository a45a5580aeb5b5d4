"use client";

// Conversations by tab (Mine / Unassigned / All) and status, newest activity first, kept live
// by hub events (see realtime/HubProvider); unread markers and the team's presence.

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { type KeyboardEvent, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { CONVERSATION_STATUSES, type ConversationStatus } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { ContactEmail, ErrorMessage, PresenceBadge, SelectField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { capitalize, contactName } from "@/lib/format";
import { useLiveState } from "@/realtime/live";
import type { InboxFilter, PreviewState, UnreadState } from "@/realtime/reducers";
import { useWorkspace } from "../WorkspaceContext";

const TABS: { id: InboxFilter["assignee"]; label: string }[] = [
  { id: "me", label: "Mine" },
  { id: "unassigned", label: "Unassigned" },
  { id: "all", label: "All" },
];

const EMPTY_UNREAD: UnreadState = {};
const EMPTY_PREVIEWS: PreviewState = {};

export function InboxList() {
  const api = useApi();
  const { workspace, me } = useWorkspace();
  const [assignee, setAssignee] = useState<InboxFilter["assignee"]>("all");
  const [status, setStatus] = useState<ConversationStatus | null>(null);
  const filter: InboxFilter = { assignee, status };
  const agents = useAgentNames(workspace.id);
  const unread = useLiveState(keys.unread(workspace.id), EMPTY_UNREAD);
  const previews = useLiveState(keys.previews(workspace.id), EMPTY_PREVIEWS);
  const pathname = usePathname();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const list = useInfiniteQuery({
    queryKey: keys.inbox(workspace.id, filter),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.workspace.GET("/api/conversations", {
          params: { query: { assignee, status: status ?? undefined, limit: 50, cursor: pageParam ?? undefined } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
    // "Mine" needs to know who "me" is before its events can be sorted into it.
    enabled: assignee !== "me" || me !== null,
  });
  const conversations = list.data?.pages.flatMap((p) => p.conversations) ?? [];

  // Arrow keys move between tabs (WAI-ARIA tabs pattern, automatic activation).
  const onTabKey = (event: KeyboardEvent, index: number) => {
    const delta = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!delta) return;
    event.preventDefault();
    const next = (index + delta + TABS.length) % TABS.length;
    setAssignee(TABS[next]!.id);
    tabRefs.current[next]?.focus();
  };

  return (
    <section className="inbox-list" aria-labelledby="inbox-heading">
      <div className="inbox-list-header">
        <h1 id="inbox-heading">Inbox</h1>
        <div role="tablist" aria-label="Conversations by assignee" className="tabs">
          {TABS.map((tab, index) => (
            <button
              key={tab.id}
              ref={(el) => {
                tabRefs.current[index] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${tab.id}`}
              aria-selected={assignee === tab.id}
              aria-controls="conversation-panel"
              tabIndex={assignee === tab.id ? 0 : -1}
              onClick={() => setAssignee(tab.id)}
              onKeyDown={(event) => onTabKey(event, index)}
            >
              {tab.label}
            </button>
          ))}
        </div>
        <SelectField
          label="Status"
          value={status ?? ""}
          onChange={(event) => setStatus((event.target.value || null) as ConversationStatus | null)}
        >
          <option value="">Any status</option>
          {CONVERSATION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {capitalize(s)}
            </option>
          ))}
        </SelectField>
      </div>
      <div role="tabpanel" id="conversation-panel" aria-labelledby={`tab-${assignee}`}>
        <ErrorMessage error={list.error} />
        {list.isPending && !list.isError ? <p role="status">Loading conversations…</p> : null}
        {list.isSuccess && conversations.length === 0 ? <p className="muted">No conversations here yet.</p> : null}
        <ul className="conversation-list" aria-label="Conversations">
          {conversations.map((c) => {
            const isUnread = !!unread[c.id];
            const preview = previews[c.id];
            const assigneeName = c.assigneeId ? (agents.get(c.assigneeId)?.displayName ?? "an agent") : null;
            const href = `/inbox/${c.id}`;
            return (
              <li key={c.id} className={isUnread ? "unread" : undefined}>
                <Link href={href} aria-current={pathname === href ? "page" : undefined}>
                  <span className="conversation-title">
                    <span className="number">#{c.number}</span> {contactName(c)}
                    {c.contact.email ? null : <ContactEmail contact={c.contact} />}
                    {isUnread ? <span className="badge badge-unread">Unread</span> : null}
                  </span>
                  <span className="conversation-meta">
                    {c.subject ? <span>{c.subject}</span> : null}
                    {preview ? <span className="preview">{preview.kind === "note" ? `Note: ${preview.body}` : preview.body}</span> : null}
                    <span className={`badge status-${c.status}`}>{c.status}</span>
                    {c.priority ? <span className="badge">{c.priority}</span> : null}
                    <span className="muted">{assigneeName ? `Assigned to ${assigneeName}` : "Unassigned"}</span>
                  </span>
                </Link>
              </li>
            );
          })}
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
