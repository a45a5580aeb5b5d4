// One limit for every message: the API refuses a body over 10,000 characters (counted as
// Unicode code points of the trimmed text) and never cuts it. The message box does not cut
// either: it counts as the visitor nears the limit and refuses to send over it, keeping the text.

export const MAX_MESSAGE_CHARS = 10_000;
/** From here on the counter shows. */
export const COUNTER_FROM = 9_000;

export interface LengthCheck {
  /** Characters as the API counts them. */
  count: number;
  /** What to show under the box, or null while far from the limit. */
  text: string | null;
  over: boolean;
}

const number = (n: number) => n.toLocaleString("en-US");

export function checkLength(draft: string): LengthCheck {
  const count = [...draft.trim()].length;
  const over = count > MAX_MESSAGE_CHARS;
  if (over) {
    return {
      count,
      over,
      text: `${number(count)} / ${number(MAX_MESSAGE_CHARS)} characters: too long to send. Shorten it by ${number(count - MAX_MESSAGE_CHARS)}.`,
    };
  }
  return { count, over, text: count >= COUNTER_FROM ? `${number(count)} / ${number(MAX_MESSAGE_CHARS)} characters` : null };
}
