// Canned-response placeholders that can come out empty. `{{contact.name}}` is empty for an
// anonymous chat visitor (who has no name, only a friendly display name), which renders
// "Thanks for reaching out, !". A placeholder takes a fallback for that case:
// `{{contact.name | fallback: "there"}}`. The editor warns about the bare ones and offers to
// add the fallback. Pure helpers.

/** Placeholders whose value may be missing (the agent's and the workspace's names never are). */
export const EMPTYABLE_KEYS: readonly string[] = ["contact.name"];

export const DEFAULT_FALLBACK = "there";

// As the API reads them: spaces allowed, the fallback in double or single quotes.
const PLACEHOLDER = /\{\{\s*([A-Za-z_.]+)\s*(\|\s*fallback\s*:\s*(?:"[^"]*"|'[^']*')\s*)?\}\}/g;

export interface BarePlaceholder {
  key: string;
  /** As written, e.g. "{{ contact.name }}". */
  text: string;
  index: number;
}

/** The placeholders in `body` that may render empty and have no fallback, in order. */
export function barePlaceholders(body: string): BarePlaceholder[] {
  const found: BarePlaceholder[] = [];
  for (const match of body.matchAll(PLACEHOLDER)) {
    const key = match[1] ?? "";
    if (!match[2] && EMPTYABLE_KEYS.includes(key)) found.push({ key, text: match[0], index: match.index });
  }
  return found;
}

/** `body` with every bare emptyable placeholder given `fallback` (quotes in it are dropped). */
export function addFallbacks(body: string, fallback: string = DEFAULT_FALLBACK): string {
  const safe = fallback.replace(/"/g, "");
  return body.replace(PLACEHOLDER, (whole: string, key: string, existing: string | undefined) =>
    !existing && EMPTYABLE_KEYS.includes(key) ? `{{${key} | fallback: "${safe}"}}` : whole,
  );
}

/** Whether the template uses the contact's name without a fallback (the reply box warns). */
export function needsNameFallback(template: string): boolean {
  return barePlaceholders(template).some((p) => p.key === "contact.name");
}
