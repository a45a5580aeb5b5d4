// A list row's preview line: the last message on one line, prefixed "You:" for the team's reply
// (the support side, as chat inboxes write it: `lastMessage` does not say which agent wrote it)
// or "Note:" for a private note; and the time the row shows.

import type { Conversation } from "@/api/types";

export function previewText(lastMessage: Conversation["lastMessage"]): string {
  if (!lastMessage) return "";
  const body = lastMessage.body.replace(/\s+/g, " ").trim();
  if (lastMessage.kind === "note") return `Note: ${body}`;
  if (lastMessage.kind === "outgoing") return `You: ${body}`;
  return body;
}

/** The row's time: the last message's, else the conversation's last activity. */
export function rowTime(conversation: Pick<Conversation, "lastMessage" | "lastMessageAt">): string {
  return conversation.lastMessage?.createdAt ?? conversation.lastMessageAt;
}
