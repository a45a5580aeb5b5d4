"use client";

// The conversation's messages as a chat thread, with activity lines between them. A container
// with role="log" (new entries are announced politely) holds an ordinary list: each entry a
// group of one author's consecutive messages, or one activity line. The view follows new
// entries while the agent is at the bottom; scrolled up, a "New messages" button appears
// instead and brings them back down. A message's files show under its text (MessageFiles); a
// message that came or went by email shows its headers, content and delivery (EmailMessage).

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Agent, Conversation, Message } from "@/api/types";
import { formatTime } from "@/components/ui";
import { MessageFiles } from "@/components/attachments/MessageFiles";
import { fullTime } from "@/lib/time";
import { type ActivityEvent, activitySentence, buildThread, type MessageGroup } from "@/lib/thread";
import { Avatar } from "./Avatar";
import { EmailMessage } from "./EmailMessage";

/** How close to the bottom (px) still counts as "at the bottom". */
const BOTTOM_SLACK_PX = 48;

export function Thread({
  workspaceId,
  conversation,
  messages,
  events,
  agents,
  meId,
  foundMessageId = null,
}: {
  workspaceId: string;
  conversation: Conversation;
  messages: Message[];
  events: ActivityEvent[];
  agents: Map<string, Agent>;
  meId: string | null;
  /** A message opened from search: scrolled to, outlined and focused once it is loaded. */
  foundMessageId?: string | null;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottomRef = useRef(true);
  const [unseen, setUnseen] = useState(false);
  const items = useMemo(() => buildThread(messages, events), [messages, events]);
  const nameOf = (id: string | null | undefined) => (id && id === meId ? "You" : ((id && agents.get(id)?.displayName) ?? "An agent"));

  const scrollToBottom = () => {
    const box = scrollRef.current;
    if (box) box.scrollTop = box.scrollHeight;
    atBottomRef.current = true;
    setUnseen(false);
  };
  // New entries: followed when at the bottom (and on first load), else announced by the pill.
  const count = messages.length;
  const lastKind = messages[messages.length - 1]?.kind;
  const lastAuthor = messages[messages.length - 1]?.authorAgentId;
  useLayoutEffect(() => {
    const mine = lastKind !== "incoming" && lastAuthor != null && lastAuthor === meId;
    if (atBottomRef.current || mine) scrollToBottom();
    else setUnseen(true);
  }, [count, lastKind, lastAuthor, meId]);
  // Activity lines below the last message follow the same rule, silently.
  useEffect(() => {
    if (atBottomRef.current) scrollToBottom();
  }, [events.length]);

  // A message opened from search: once it is in the thread, bring it into view (after the
  // first load's scroll to the bottom) and move focus to it, so a screen reader reads it. The
  // thread may be rebuilt under it (the activity lines load on their own and regroup the
  // messages, replacing the bubble's element): focus that fell to the page goes back to it,
  // while focus the agent moved elsewhere stays where they put it.
  const found = foundMessageId != null && messages.some((m) => m.id === foundMessageId);
  const shownFound = useRef<string | null>(null);
  useEffect(() => {
    if (!found || !foundMessageId) return;
    const bubble = document.getElementById(`message-${foundMessageId}`);
    if (!bubble) return;
    const first = shownFound.current !== foundMessageId;
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (!first && !lost) return;
    shownFound.current = foundMessageId;
    bubble.scrollIntoView({ block: "center" });
    bubble.focus({ preventScroll: true });
    atBottomRef.current = false;
  }, [found, foundMessageId, items]);

  const onScroll = () => {
    const box = scrollRef.current;
    if (!box) return;
    atBottomRef.current = box.scrollHeight - box.scrollTop - box.clientHeight <= BOTTOM_SLACK_PX;
    if (atBottomRef.current) setUnseen(false);
  };

  return (
    <div className="thread-frame">
      <div className="thread-scroll" ref={scrollRef} onScroll={onScroll} role="log" aria-label="Messages" tabIndex={0}>
        <ol className="thread">
          {items.map((item) =>
            item.kind === "activity" ? (
              <ActivityLineItem key={item.key} event={item.event} text={activitySentence(item.event, nameOf, meId)} />
            ) : (
              <GroupItem
                key={item.key}
                workspaceId={workspaceId}
                group={item}
                conversation={conversation}
                agents={agents}
                foundMessageId={foundMessageId}
              />
            ),
          )}
        </ol>
      </div>
      {unseen ? (
        <button type="button" className="new-messages-pill" onClick={scrollToBottom}>
          New messages ↓
        </button>
      ) : null}
    </div>
  );
}

function ActivityLineItem({ event, text }: { event: ActivityEvent; text: string | null }) {
  if (!text) return null;
  return (
    <li className="activity-line">
      <span>{text}</span>{" "}
      <time dateTime={event.occurredAt} title={fullTime(event.occurredAt)}>
        {formatTime(event.occurredAt)}
      </time>
    </li>
  );
}

function GroupItem({
  workspaceId,
  group,
  conversation,
  agents,
  foundMessageId,
}: {
  workspaceId: string;
  group: MessageGroup;
  conversation: Conversation;
  agents: Map<string, Agent>;
  foundMessageId: string | null;
}) {
  const first = group.messages[0]!;
  const incoming = group.messageKind === "incoming";
  const agent = first.authorAgentId ? agents.get(first.authorAgentId) : undefined;
  const name = incoming ? conversation.contact.displayName : (agent?.displayName ?? "Agent");
  const avatarId = incoming ? conversation.contact.id : (first.authorAgentId ?? "agent");
  return (
    <li className={`message-group group-${group.messageKind}`}>
      <Avatar id={avatarId} name={name} size="small" />
      <div className="group-body">
        <p className="group-author">
          <span className="author">{name}</span>
          {group.messageKind === "note" ? <span className="badge badge-note">Note</span> : null}
        </p>
        {group.messages.map((m) => (
          <div
            key={m.id}
            id={`message-${m.id}`}
            className={`bubble bubble-${m.kind}${m.email ? " bubble-email" : ""}${m.id === foundMessageId ? " bubble-found" : ""}`}
            tabIndex={m.id === foundMessageId ? -1 : undefined}
          >
            {m.id === foundMessageId ? <span className="visually-hidden">Found by search: </span> : null}
            {m.email ? (
              <EmailMessage workspaceId={workspaceId} conversationId={conversation.id} message={m} email={m.email} />
            ) : (
              <>
                {m.body ? <p className="message-body">{m.body}</p> : null}
                <MessageFiles workspaceId={workspaceId} conversationId={conversation.id} attachments={m.attachments ?? []} />
              </>
            )}
            <time dateTime={m.createdAt} title={fullTime(m.createdAt)} className="bubble-time">
              {formatTime(m.createdAt)}
            </time>
          </div>
        ))}
      </div>
    </li>
  );
}
