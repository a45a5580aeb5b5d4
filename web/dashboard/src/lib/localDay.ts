// Calendar days as a date input writes them (`YYYY-MM-DD`) and the instants the API filters by
// (RFC 3339), in the agent's own time zone: a day starts at its local midnight, so a range
// "to the 28th" runs until the 29th starts (the API's "before" is exclusive). Pure but for the
// time zone the browser reports.

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

// Four-digit years, whose next day still has four digits: what a date input and RFC 3339 both
// write (a year typed digit by digit passes through 0002, 0020 and 0202 on its way to 2026).
const FIRST_YEAR = 1000;
const LAST_YEAR = 9998;

/** The local midnight starting `day`, or null when `day` is not a real calendar day. */
function startOf(day: string): Date | null {
  const match = DAY.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < FIRST_YEAR || year > LAST_YEAR) return null;
  const at = new Date(year, month - 1, date);
  // 2026-02-31 rolls over to March: not a day anyone picked.
  if (at.getFullYear() !== year || at.getMonth() !== month - 1 || at.getDate() !== date) return null;
  return at;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The local day holding `at`, or null outside the years a day may have. */
function dayAt(at: Date): string | null {
  const year = at.getFullYear();
  if (Number.isNaN(year) || year < FIRST_YEAR || year > LAST_YEAR) return null;
  return `${pad(year, 4)}-${pad(at.getMonth() + 1, 2)}-${pad(at.getDate(), 2)}`;
}

/** Whether `value` is a calendar day this module reads (`2026-11-28`). */
export function isDay(value: string | null | undefined): value is string {
  return typeof value === "string" && startOf(value) !== null;
}

/**
 * When `day` starts in local time, as an RFC 3339 instant (UTC): a range's inclusive "from".
 * Built from the calendar rather than by adding 24 hours, so days that summer time makes 23 or
 * 25 hours long end where they should.
 */
export function dayStart(day: string): string | null {
  return startOf(day)?.toISOString() ?? null;
}

/** When the day after `day` starts in local time: a range's exclusive "to", so `day` is all in. */
export function dayEnd(day: string): string | null {
  const at = startOf(day);
  if (!at) return null;
  at.setDate(at.getDate() + 1);
  return at.toISOString();
}

/** The local day holding the instant `instant` (a range's "from" as the API keeps it), or null. */
export function dayOf(instant: string): string | null {
  return dayAt(new Date(Date.parse(instant)));
}

/**
 * The last local day before the instant `instant` (a range's exclusive "to" as the API keeps
 * it): the day holding its previous millisecond, so the next day's midnight reads as the day
 * it ends, and any other time as the day it falls in.
 */
export function dayBefore(instant: string): string | null {
  return dayAt(new Date(Date.parse(instant) - 1));
}
