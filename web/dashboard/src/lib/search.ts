// The search box's pure parts: a result's snippet as text runs (the API marks matched words
// with <mark> in otherwise escaped HTML; we never inject it as HTML), results grouped by type
// in a fixed order, where each result opens, and moving through them with the arrow keys.

import type { SearchHit } from "@/api/types";

export type HitType = SearchHit["type"];

export interface TextRun {
  text: string;
  marked: boolean;
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

function unescape(html: string): string {
  return html.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** "a <mark>b</mark> &amp; c" -> [a ][b, marked][ & c]. Anything else stays text. */
export function highlightRuns(html: string): TextRun[] {
  const runs: TextRun[] = [];
  const pattern = /<mark>([\s\S]*?)<\/mark>/g;
  let at = 0;
  for (const match of html.matchAll(pattern)) {
    const start = match.index ?? 0;
    if (start > at) runs.push({ text: unescape(html.slice(at, start)), marked: false });
    runs.push({ text: unescape(match[1] ?? ""), marked: true });
    at = start + match[0].length;
  }
  if (at < html.length) runs.push({ text: unescape(html.slice(at)), marked: false });
  return runs.filter((run) => run.text.length > 0);
}

export const HIT_TYPE_ORDER: readonly HitType[] = ["conversation", "message", "ticket", "contact"];

export const HIT_TYPE_HEADINGS: Readonly<Record<HitType, string>> = {
  conversation: "Conversations",
  message: "Messages",
  ticket: "Tickets",
  contact: "Contacts",
};

export interface HitGroup {
  type: HitType;
  hits: SearchHit[];
}

/** Results grouped by type (conversations, messages, tickets, contacts), best first within each. */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  return HIT_TYPE_ORDER.map((type) => ({ type, hits: hits.filter((hit) => hit.type === type) })).filter(
    (group) => group.hits.length > 0,
  );
}

/** The results in the order the groups show them: what the arrow keys walk through. */
export function displayOrder(hits: readonly SearchHit[]): SearchHit[] {
  return groupHits(hits).flatMap((group) => group.hits);
}

/**
 * Where a result opens: a conversation; a message in its conversation (the thread scrolls to
 * it); a ticket; a contact's conversations in the inbox.
 */
export function hitHref(hit: SearchHit): string {
  switch (hit.type) {
    case "conversation":
      return `/inbox/${hit.id}`;
    case "message":
      return `/inbox/${hit.conversationId ?? ""}?message=${encodeURIComponent(hit.id)}`;
    case "ticket":
      return `/tickets/${hit.id}`;
    case "contact":
      return `/inbox?contact=${encodeURIComponent(hit.id)}`;
  }
}

/** The next active index for an arrow key (wrapping), or null for any other key. */
export function moveActive(key: string, active: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case "ArrowDown":
      return (active + 1) % count;
    case "ArrowUp":
      return (active - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return null;
  }
}

/** Ctrl+K, or Cmd+K on a Mac: opens the search box from any page. */
export function isSearchShortcut(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">): boolean {
  return event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
}
