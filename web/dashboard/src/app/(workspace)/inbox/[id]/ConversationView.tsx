"use client";

// One conversation: its header (channel, assignee, status, priority, ticket, the customer's
// ratings), the thread with activity lines, the reply box pinned below, and the contact panel
// beside it (behind a "Contact" toggle on phone-sized screens, where a back button returns to
// the list).

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { type Agent, CONVERSATION_STATUSES, type Conversation, type ConversationStatus, PRIORITIES, type Priority } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { ErrorMessage, SelectField } from "@/components/ui";
import { ContactPanel } from "@/components/contact/ContactPanel";
import { ChannelMarker } from "@/components/inbox/ChannelMarker";
import { ConversationRatings } from "@/components/inbox/ConversationRatings";
import { Thread } from "@/components/inbox/Thread";
import { LabelPicker } from "@/components/labels/LabelPicker";
import { useReadMarks } from "@/components/inbox/useReadMarks";
import { useApi } from "@/app/providers";
import { useHub } from "@/realtime/HubProvider";
import { hasPendingDelivery } from "@/lib/email";
import { ownAddresses, threadRecipients } from "@/lib/recipients";
import { priorityLabel, statusLabel } from "@/lib/labels";
import { inboxHref, parseInboxView } from "@/lib/inboxUrl";
import { inboxKeys } from "@/lib/inboxKeys";
import type { ActivityEvent } from "@/lib/thread";
import { useLiveState } from "@/realtime/live";
import { replaceConversation, typists, type TypingState } from "@/realtime/reducers";
import { useWorkspace } from "../../WorkspaceContext";
import { CreateTicketDialog } from "./CreateTicketDialog";
import { ReplyBox } from "./ReplyBox";

const EMPTY_TYPING: TypingState = {};
const NO_EVENTS: ActivityEvent[] = [];
/** How often the thread is read again while an email reply is being sent. */
const DELIVERY_POLL_MS = 5_000;

export function ConversationView({ conversationId }: { conversationId: string }) {
  const api = useApi();
  const { workspace, me, isOwner } = useWorkspace();
  const hub = useHub();
  const queryClient = useQueryClient();
  const router = useRouter();
  const searchParams = useSearchParams();
  const view = parseInboxView(searchParams);
  const foundMessageId = searchParams.get("message");
  const headingRef = useRef<HTMLHeadingElement>(null);
  const agents = useAgentNames(workspace.id);
  const [contactOpen, setContactOpen] = useState(false);

  const conversation = useQuery({
    queryKey: keys.conversation(workspace.id, conversationId),
    queryFn: () => unwrap(api.workspace.GET("/api/conversations/{id}", { params: { path: { id: conversationId } } })),
  });
  const messages = useInfiniteQuery({
    queryKey: keys.messages(workspace.id, conversationId),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.workspace.GET("/api/conversations/{id}/messages", {
          params: { path: { id: conversationId }, query: { limit: 200, cursor: pageParam ?? undefined } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
    // An email reply waits for the worker to send it: asked again until none is pending.
    refetchInterval: (q) => (hasPendingDelivery(q.state.data?.pages.flatMap((p) => p.messages) ?? []) ? DELIVERY_POLL_MS : false),
  });
  // Who a reply by email goes to leaves out the workspace's own addresses: an Owner reads them
  // in the email settings; any agent knows the From of the thread's replies (lib/recipients).
  const isEmail = conversation.data?.channel === "email";
  const emailSettings = useQuery({
    queryKey: keys.email(workspace.id),
    queryFn: () => unwrap(api.workspace.GET("/api/settings/email")),
    enabled: isOwner && isEmail,
    staleTime: 60_000,
  });
  const activity = useQuery({
    queryKey: inboxKeys.activity(workspace.id, conversationId),
    queryFn: () => unwrap(api.workspace.GET("/api/conversations/{id}/activity", { params: { path: { id: conversationId } } })),
  });
  // Oldest first, a page at a time: load them all, so the newest (and live ones) are shown.
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = messages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const all = messages.data?.pages.flatMap((p) => p.messages) ?? [];
  const lastIncomingId = [...all].reverse().find((m) => m.kind === "incoming")?.id ?? null;
  useReadMarks(workspace.id, conversationId, lastIncomingId);

  // A change to the conversation (status, assignee, priority; here or over the hub) or a new
  // rating (which leaves `updatedAt` as it was) is a new activity line: ask for them again.
  const updatedAt = conversation.data?.updatedAt;
  const ratingCount = conversation.data?.ratings?.length ?? 0;
  useEffect(() => {
    if (updatedAt) void queryClient.invalidateQueries({ queryKey: inboxKeys.activity(workspace.id, conversationId) });
  }, [updatedAt, ratingCount, queryClient, workspace.id, conversationId]);

  // On screen: its messages are read as they arrive, and its typing events come to us. Joined
  // again after every reconnect.
  const { send, setOpenConversation, state: hubState } = hub;
  useEffect(() => {
    setOpenConversation(conversationId);
    return () => setOpenConversation(null);
  }, [conversationId, setOpenConversation]);
  useEffect(() => {
    if (hubState !== "connected") return;
    void send("JoinConversation", conversationId);
    return () => {
      void send("Typing", conversationId, false);
      void send("LeaveConversation", conversationId);
    };
  }, [conversationId, hubState, send]);

  // Focus the heading when a conversation opens, so screen readers announce it; opened at a
  // message found by search, the thread focuses that message instead (and this effect, which
  // runs after the thread's in the same commit, must not take the focus back).
  const loaded = conversation.isSuccess;
  const openedAtMessage = foundMessageId !== null;
  useEffect(() => {
    if (loaded && !openedAtMessage) headingRef.current?.focus();
  }, [loaded, conversationId, openedAtMessage]);

  // An update answered by the API: the conversation and the inbox lists holding it.
  const applyUpdate = (updated: Conversation) => {
    queryClient.setQueryData<Conversation>(keys.conversation(workspace.id, updated.id), (c) => replaceConversation(c, updated));
    void queryClient.invalidateQueries({ queryKey: keys.conversations(workspace.id) });
  };
  const assign = useMutation({
    mutationFn: (assigneeId: string | null) =>
      unwrap(api.workspace.POST("/api/conversations/{id}/assign", { params: { path: { id: conversationId } }, body: { assigneeId } })),
    onSuccess: applyUpdate,
  });
  const setStatus = useMutation({
    mutationFn: (status: ConversationStatus) =>
      unwrap(api.workspace.POST("/api/conversations/{id}/status", { params: { path: { id: conversationId } }, body: { status } })),
    onSuccess: applyUpdate,
  });
  const setPriority = useMutation({
    mutationFn: (priority: Priority | null) =>
      unwrap(api.workspace.POST("/api/conversations/{id}/priority", { params: { path: { id: conversationId } }, body: { priority } })),
    onSuccess: applyUpdate,
  });
  const [ticketOpen, setTicketOpen] = useState(false);

  if (conversation.isError) return <ErrorMessage error={conversation.error} />;
  if (!conversation.data) return <p role="status">Loading conversation…</p>;
  const c = conversation.data;

  return (
    <article className="conversation" aria-labelledby="conversation-heading" data-contact={contactOpen ? "open" : "closed"}>
      <header className="conversation-header">
        <div className="conversation-title-row">
          <button type="button" className="ghost back-to-list" onClick={() => router.push(inboxHref(view, null))}>
            ← Conversations
          </button>
          <h2 id="conversation-heading" ref={headingRef} tabIndex={-1}>
            {c.contact.displayName} <span className="number">#{c.number}</span>
            {c.subject ? <span className="muted"> · {c.subject}</span> : null}
          </h2>
          <ChannelMarker channel={c.channel} />
          <button type="button" className="ghost contact-toggle" aria-expanded={contactOpen} aria-controls="contact-panel" onClick={() => setContactOpen((o) => !o)}>
            Contact
          </button>
        </div>
        <div className="conversation-controls">
          <AssigneeControl workspaceId={workspace.id} assigneeId={c.assigneeId ?? null} meId={me?.id ?? null} onAssign={(id) => assign.mutate(id)} pending={assign.isPending} />
          <SelectField label="Status" value={c.status} disabled={setStatus.isPending} onChange={(e) => setStatus.mutate(e.target.value as ConversationStatus)}>
            {CONVERSATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Priority"
            value={c.priority ?? ""}
            disabled={setPriority.isPending}
            onChange={(e) => setPriority.mutate((e.target.value || null) as Priority | null)}
          >
            <option value="">None</option>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {priorityLabel(p)}
              </option>
            ))}
          </SelectField>
          <button type="button" onClick={() => setTicketOpen(true)}>
            Create ticket
          </button>
        </div>
        <LabelPicker
          workspaceId={workspace.id}
          current={c.labels ?? []}
          of="this conversation"
          isOwner={isOwner}
          save={async (labelIds) =>
            applyUpdate(await unwrap(api.workspace.PUT("/api/conversations/{id}/labels", { params: { path: { id: c.id } }, body: { labelIds } })))
          }
        />
        <ConversationRatings ratings={c.ratings} />
        <ErrorMessage error={assign.error ?? setStatus.error ?? setPriority.error} />
      </header>
      <div className="conversation-body">
        <div className="conversation-main">
          {messages.data ? (
            <Thread workspaceId={workspace.id} conversation={c} messages={all} events={activity.data?.events ?? NO_EVENTS} agents={agents} meId={me?.id ?? null} foundMessageId={foundMessageId} />
          ) : (
            <p role="status">Loading messages…</p>
          )}
          <ErrorMessage error={messages.error ?? activity.error} />
          <TypingIndicator workspaceId={workspace.id} conversationId={c.id} meId={me?.id ?? null} />
          <ReplyBox
            conversationId={c.id}
            contact={c.contact}
            email={c.channel === "email" ? threadRecipients(all, c.contact, ownAddresses(emailSettings.data, all)) : null}
          />
        </div>
        <ContactPanel id="contact-panel" workspaceId={workspace.id} contact={c.contact} conversationId={c.id} isOwner={isOwner} />
      </div>
      <CreateTicketDialog open={ticketOpen} onClose={() => setTicketOpen(false)} conversation={c} />
    </article>
  );
}

function AssigneeControl({
  workspaceId,
  assigneeId,
  meId,
  onAssign,
  pending,
}: {
  workspaceId: string;
  assigneeId: string | null;
  meId: string | null;
  onAssign: (id: string | null) => void;
  pending: boolean;
}) {
  const agents = useAgents(workspaceId);
  const active: Agent[] = agents.data?.agents ?? [];
  const current = assigneeId && !active.some((a) => a.id === assigneeId) ? assigneeId : null;
  return (
    <>
      <SelectField label="Assignee" value={assigneeId ?? ""} disabled={pending} onChange={(e) => onAssign(e.target.value || null)}>
        <option value="">Unassigned</option>
        {current ? <option value={current}>(inactive agent)</option> : null}
        {active.map((a) => (
          <option key={a.id} value={a.id}>
            {a.id === meId ? `${a.displayName} (me)` : a.displayName}
          </option>
        ))}
      </SelectField>
      {meId && assigneeId !== meId ? (
        <button type="button" onClick={() => onAssign(meId)} disabled={pending}>
          Assign to me
        </button>
      ) : null}
    </>
  );
}

function TypingIndicator({ workspaceId, conversationId, meId }: { workspaceId: string; conversationId: string; meId: string | null }) {
  const state = useLiveState(keys.typing(workspaceId), EMPTY_TYPING);
  // Starts at 0 (entries just received are current); the ticker below expires silent typists.
  const [now, setNow] = useState(0);
  const hasEntries = Object.keys(state[conversationId] ?? {}).length > 0;
  // Entries expire without an event: re-check every second while someone may be typing.
  useEffect(() => {
    if (!hasEntries) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [hasEntries, state]);
  const names = typists(state, conversationId, now, meId);
  return (
    <p className="typing" role="status" aria-live="polite">
      {names.length === 0 ? "" : names.length === 1 ? `${names[0]} is typing…` : `${names.join(" and ")} are typing…`}
    </p>
  );
}
