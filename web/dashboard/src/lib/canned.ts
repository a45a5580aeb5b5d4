// Canned responses in the reply box: typing "/" and a short code at the caret offers the
// matching responses; choosing one replaces "/code" with the rendered body. Pure helpers.

/** The short code being typed just before the caret ("/gree|" -> "gree"), or null. */
export function shortcodeAt(text: string, caret: number): { query: string; start: number } | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)\/([A-Za-z0-9_-]*)$/.exec(before);
  if (!match) return null;
  const query = match[2] ?? "";
  return { query, start: caret - query.length - 1 };
}

/** The text with "/code" (from `start` to the caret) replaced by `body`, and the new caret. */
export function insertCanned(text: string, start: number, caret: number, body: string): { text: string; caret: number } {
  const next = text.slice(0, start) + body + text.slice(caret);
  return { text: next, caret: start + body.length };
}
