// Relative times for the inbox list ("now", "5m", "3h", "Tue", "12 Mar") and a person's local
// time in their own time zone. Pure: `now` is passed in.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A short age for a list row; the full time goes in the element's title. */
export function relativeTime(iso: string, now: number, locale?: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const age = Math.max(0, now - at);
  if (age < MINUTE) return "now";
  if (age < HOUR) return `${Math.floor(age / MINUTE)}m`;
  if (age < DAY) return `${Math.floor(age / HOUR)}h`;
  if (age < 7 * DAY) return new Date(at).toLocaleDateString(locale, { weekday: "short" });
  const sameYear = new Date(at).getFullYear() === new Date(now).getFullYear();
  return new Date(at).toLocaleDateString(locale, sameYear ? { day: "numeric", month: "short" } : { day: "numeric", month: "short", year: "numeric" });
}

/** The full date and time, for a `title`. */
export function fullTime(iso: string, locale?: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  return new Date(at).toLocaleString(locale, { dateStyle: "full", timeStyle: "short" });
}

/** "14:05" in the given IANA time zone; null for a zone the browser does not know. */
export function localTimeIn(timeZone: string, now: number, locale?: string): string | null {
  try {
    return new Date(now).toLocaleTimeString(locale, { timeZone, hour: "2-digit", minute: "2-digit" });
  } catch {
    return null;
  }
}
