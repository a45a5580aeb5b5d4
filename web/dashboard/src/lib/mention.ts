// `@` mentions in a note: the word being typed after "@" at the caret, the active agents whose
// display name matches it, and the text with "@query" replaced by "@Display Name ". The API
// notifies an active agent whose "@Display Name" a note contains.

/** The mention being typed just before the caret ("hi @oli|" -> "oli"), or null. */
export function mentionAt(text: string, caret: number): { query: string; start: number } | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@([^\s@]{0,32})$/.exec(before);
  if (!match) return null;
  const query = match[2] ?? "";
  return { query, start: caret - query.length - 1 };
}

/** Agents whose display name has a word starting with the query (case-insensitive), at most `limit`. */
export function matchAgents<A extends { displayName: string }>(agents: readonly A[], query: string, limit = 8): A[] {
  const q = query.toLocaleLowerCase();
  const starts = (a: A) => a.displayName.toLocaleLowerCase().startsWith(q);
  const wordStarts = (a: A) => a.displayName.toLocaleLowerCase().split(/\s+/).some((w) => w.startsWith(q));
  return [...agents.filter(starts), ...agents.filter((a) => !starts(a) && wordStarts(a))].slice(0, limit);
}

/** The text with "@query" (from `start` to the caret) replaced by "@Display Name ", and the new caret. */
export function insertMention(text: string, start: number, caret: number, displayName: string): { text: string; caret: number } {
  const inserted = `@${displayName} `;
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}
