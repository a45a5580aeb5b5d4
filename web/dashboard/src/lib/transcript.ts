// The transcript "Create ticket" puts in a ticket's description: the conversation's messages,
// oldest first, each with who wrote it and when. Private notes are left out unless asked for
// (they are the team's asides, and a ticket is often shared further than the conversation).
// Long conversations keep their newest messages within the description's limit.

import type { Message } from "@/api/types";

/** The API's limit on a ticket description, in characters. */
export const DESCRIPTION_MAX_CHARS = 50_000;

export interface TranscriptOptions {
  includeNotes: boolean;
  /** The contact, as incoming messages are signed. */
  contactName: string;
  /** An agent's display name by id (a reply or note without a known author reads "Agent"). */
  agentName: (id: string) => string | undefined;
  /** How a time is written ("12 Mar, 14:02"). */
  formatTime: (iso: string) => string;
  maxChars?: number;
}

const LEFT_OUT = "[Earlier messages left out]";

function line(message: Message, options: TranscriptOptions): string {
  const author =
    message.kind === "incoming" ? options.contactName : (message.authorAgentId && options.agentName(message.authorAgentId)) || "Agent";
  const label = message.kind === "note" ? `${author} (private note)` : author;
  return `${label}, ${options.formatTime(message.createdAt)}:\n${message.body.trim()}`;
}

/** The transcript of `messages` (in any order), or "" when nothing is to be shown. */
export function transcript(messages: readonly Message[], options: TranscriptOptions): string {
  const max = options.maxChars ?? DESCRIPTION_MAX_CHARS;
  const shown = [...messages]
    .filter((m) => options.includeNotes || m.kind !== "note")
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
    .map((m) => line(m, options));
  // Newest first until the limit, then back in order.
  const kept: string[] = [];
  let length = 0;
  for (let i = shown.length - 1; i >= 0; i--) {
    const entry = shown[i] ?? "";
    const added = entry.length + (kept.length ? 2 : 0);
    const reserve = i > 0 ? LEFT_OUT.length + 2 : 0;
    if (length + added + reserve > max) break;
    kept.unshift(entry);
    length += added;
  }
  if (kept.length < shown.length) kept.unshift(LEFT_OUT);
  return kept.join("\n\n");
}
