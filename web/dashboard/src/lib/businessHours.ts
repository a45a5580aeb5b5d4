// Business hours as the Settings form edits them, and back to the API's document. The form
// keeps all seven days (a closed day remembers its hours, so ticking "Open" again restores
// them) and every stored opening of a day, so saving never drops one. A time input cannot
// show the API's "24:00": the form shows midnight at the end of the day as "00:00", which as a
// closing time can mean nothing else (a day's hours close after they open). Problems are found
// before the round trip, in words naming the day; the API checks again.

import type { BusinessHours, Opening, Weekday } from "@/api/types";

export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

export const DAY_NAMES: Record<Weekday, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};

/** The API's limit of openings a day (a split day, a lunch break). */
export const MAX_OPENINGS_PER_DAY = 4;

/** Hours a day gets when it is opened for the first time, or a day gets another opening. */
export const NEW_OPENING: TimeRange = { opens: "09:00", closes: "17:00" };

const API_MIDNIGHT = "24:00";
const SHOWN_MIDNIGHT = "00:00";
const DAY_MINUTES = 24 * 60;

/** One opening as the time inputs hold it: "HH:MM", or "" while not filled in. */
export interface TimeRange {
  opens: string;
  closes: string;
}

export interface DayHours {
  day: Weekday;
  open: boolean;
  /** At least one; kept while the day is closed. */
  ranges: TimeRange[];
}

export interface HoursForm {
  timeZone: string;
  /** Seven, Monday first. */
  days: DayHours[];
  /** YYYY-MM-DD, in order, each once. */
  holidays: string[];
}

/** Problems found in the form, by day; a day without problems is absent. */
export type DayProblems = Partial<Record<Weekday, string[]>>;

const dayIndex = (day: Weekday) => WEEKDAYS.indexOf(day);
const sortedUnique = (values: readonly string[]) => [...new Set(values)].sort();

export function toForm(hours: BusinessHours): HoursForm {
  return {
    timeZone: hours.timeZone,
    days: WEEKDAYS.map((day) => {
      const ranges = hours.weekly
        .filter((opening) => opening.day === day)
        .sort((a, b) => a.open.localeCompare(b.open))
        .map((opening) => ({ opens: opening.open, closes: opening.close === API_MIDNIGHT ? SHOWN_MIDNIGHT : opening.close }));
      return ranges.length > 0 ? { day, open: true, ranges } : { day, open: false, ranges: [{ ...NEW_OPENING }] };
    }),
    holidays: sortedUnique(hours.holidays),
  };
}

/** The document to save: open days only, sorted by day then opening time, midnight as "24:00". */
export function toDocument(form: HoursForm): BusinessHours {
  const weekly: Opening[] = form.days
    .filter((day) => day.open)
    .flatMap((day) => day.ranges.map((range) => ({ day: day.day, open: range.opens, close: closeForApi(range.closes) })))
    .sort((a, b) => dayIndex(a.day) - dayIndex(b.day) || a.open.localeCompare(b.open));
  return { timeZone: form.timeZone, weekly, holidays: sortedUnique(form.holidays) };
}

function closeForApi(closes: string): string {
  return closes === SHOWN_MIDNIGHT ? API_MIDNIGHT : closes;
}

/** "HH:MM" as minutes of the day, or null when it is not a time. */
function minutes(time: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** How an opening reads in a message: "22:00–midnight". */
function rangeText(range: TimeRange): string {
  return `${range.opens}–${range.closes === SHOWN_MIDNIGHT ? "midnight" : range.closes}`;
}

/** What must be fixed before saving, in words naming the day. Closed days are not checked. */
export function validateForm(form: HoursForm): DayProblems {
  const problems: DayProblems = {};
  for (const day of form.days) {
    if (!day.open) continue;
    const name = DAY_NAMES[day.day];
    const messages: string[] = [];
    const complete: { start: number; end: number; range: TimeRange }[] = [];
    for (const range of day.ranges) {
      const start = minutes(range.opens);
      const end = range.closes === SHOWN_MIDNIGHT ? DAY_MINUTES : minutes(range.closes);
      if (start === null) messages.push(`${name}: enter an opening time.`);
      if (end === null) messages.push(`${name}: enter a closing time.`);
      if (start === null || end === null) continue;
      if (end <= start) {
        messages.push(`${name}: closes at ${range.closes}, before it opens at ${range.opens}. Hours past midnight go on the next day.`);
      } else {
        complete.push({ start, end, range });
      }
    }
    complete.sort((a, b) => a.start - b.start);
    for (let i = 1; i < complete.length; i++) {
      const before = complete[i - 1];
      const after = complete[i];
      if (before && after && after.start < before.end) {
        messages.push(`${name}: ${rangeText(before.range)} and ${rangeText(after.range)} overlap.`);
      }
    }
    if (messages.length > 0) problems[day.day] = messages;
  }
  return problems;
}

export function hasProblems(problems: DayProblems): boolean {
  return Object.keys(problems).length > 0;
}

/** The holidays with `date` (a date input's value) added, or why it cannot be. */
export function addHoliday(holidays: readonly string[], date: string): { holidays: string[] } | { error: string } {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return { error: "Choose a date to add." };
  if (holidays.includes(date)) return { error: `${date} is already a holiday.` };
  return { holidays: sortedUnique([...holidays, date]) };
}

/**
 * The time zones to choose from: "UTC" first (browsers leave it out of their list), then the
 * browser's IANA zones in order, and the stored zone even if the browser does not know it.
 */
export function timeZoneOptions(supported: readonly string[], current: string): string[] {
  const zones = new Set(supported.filter((zone) => zone !== "UTC"));
  if (current !== "UTC") zones.add(current);
  return ["UTC", ...[...zones].sort()];
}
