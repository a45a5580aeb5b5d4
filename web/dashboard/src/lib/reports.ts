// The Reports page's pure parts: the filters and the query they make, the range presets, how
// durations, scores and periods read, the sentences that sum a report up, the CSAT
// distribution and the heatmap's grid. Days are `YYYY-MM-DD` calendar days in the workspace's
// time zone (the API's), computed on the calendar, never by adding hours.

import type {
  CsatTotal,
  HeatmapCell,
  RatingCount,
  ReportChannel,
  ReportGroupBy,
  ReportMetric,
  ReportQuery,
  ReportRange,
  TimeTotal,
  VolumeTotal,
} from "@/api/reports";

// ---- days -------------------------------------------------------------------------------------

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** `day` as midnight UTC (a calendar day, whatever the browser's zone), or null when it is not a real day. */
function dayValue(day: string): number | null {
  const match = DAY.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1000) return null;
  const at = Date.UTC(year, month - 1, date);
  const check = new Date(at);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date) return null;
  return at;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function dayFromValue(at: number): string {
  const date = new Date(at);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** Whether `value` is a real calendar day written `YYYY-MM-DD`. */
export function isReportDay(value: string): boolean {
  return dayValue(value) !== null;
}

/** `day` moved by `days` calendar days (negative: back). */
export function addDays(day: string, days: number): string {
  const at = dayValue(day);
  if (at === null) throw new Error(`not a day: ${day}`);
  return dayFromValue(at + days * DAY_MS);
}

/** How many days `from` to `to` covers, both included (0 when `to` is before `from` or either is not a day). */
export function daysCovered(from: string, to: string): number {
  const start = dayValue(from);
  const end = dayValue(to);
  if (start === null || end === null || end < start) return 0;
  return Math.round((end - start) / DAY_MS) + 1;
}

/** Today in `timeZone` (the workspace's), or in the browser's own zone when it is unknown. */
export function todayIn(timeZone: string | null | undefined, now: Date): string {
  if (timeZone) {
    try {
      const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now);
      const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
      const day = `${part("year")}-${part("month")}-${part("day")}`;
      if (isReportDay(day)) return day;
    } catch {
      // An unknown zone: the browser's own day below.
    }
  }
  return `${pad(now.getFullYear(), 4)}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

// ---- filters ----------------------------------------------------------------------------------

export type RangePreset = "last7" | "last30" | "last90" | "year" | "custom";

export const RANGE_PRESETS: readonly { value: RangePreset; label: string }[] = [
  { value: "last7", label: "Last 7 days" },
  { value: "last30", label: "Last 30 days" },
  { value: "last90", label: "Last 90 days" },
  { value: "year", label: "This year" },
  { value: "custom", label: "Custom" },
];

export const GROUP_BY_OPTIONS: readonly { value: ReportGroupBy; label: string }[] = [
  { value: "day", label: "Day" },
  { value: "week", label: "Week" },
  { value: "month", label: "Month" },
];

export const CHANNEL_OPTIONS: readonly { value: ReportChannel; label: string }[] = [
  { value: "chat", label: "Chat" },
  { value: "email", label: "Email" },
  { value: "manual", label: "Manual" },
];

/** The longest range the API reports on. */
export const MAX_RANGE_DAYS = 366;

/** The filters as the form holds them: "" is "all" (or, for the dates, the API's default range). */
export interface ReportFilters {
  preset: RangePreset;
  from: string;
  to: string;
  groupBy: ReportGroupBy;
  businessHours: boolean;
  /** An agent's profile id (Owners only). */
  agentId: string;
  channel: ReportChannel | "";
  labelId: string;
}

/** The last 30 days, left to the API, which knows the workspace's today. */
export const DEFAULT_FILTERS: Readonly<ReportFilters> = {
  preset: "last30",
  from: "",
  to: "",
  groupBy: "day",
  businessHours: false,
  agentId: "",
  channel: "",
  labelId: "",
};

/** A preset's days, ending `today` (the workspace's). */
export function presetRange(preset: Exclude<RangePreset, "custom">, today: string): { from: string; to: string } {
  switch (preset) {
    case "last7":
      return { from: addDays(today, -6), to: today };
    case "last30":
      return { from: addDays(today, -29), to: today };
    case "last90":
      return { from: addDays(today, -89), to: today };
    case "year":
      return { from: `${today.slice(0, 4)}-01-01`, to: today };
  }
}

export interface RangeErrors {
  from: string[];
  to: string[];
}

/** What is wrong with a custom range, by field, before asking the API (which would refuse it). */
export function rangeErrors(filters: Pick<ReportFilters, "preset" | "from" | "to">): RangeErrors {
  const errors: RangeErrors = { from: [], to: [] };
  if (filters.preset !== "custom") return errors;
  if (!isReportDay(filters.from)) errors.from.push("Enter a start date.");
  if (!isReportDay(filters.to)) errors.to.push("Enter an end date.");
  if (errors.from.length || errors.to.length) return errors;
  if (filters.to < filters.from) errors.to.push("The end date is before the start date.");
  else if (daysCovered(filters.from, filters.to) > MAX_RANGE_DAYS) errors.to.push(`A range covers at most ${MAX_RANGE_DAYS} days.`);
  return errors;
}

export function hasRangeErrors(errors: RangeErrors): boolean {
  return errors.from.length > 0 || errors.to.length > 0;
}

/**
 * The API's parameters for `filters`: only what differs from its defaults. An agent never
 * names an agent: the API reports their own figures.
 */
export function reportQuery(filters: ReportFilters, { isOwner }: { isOwner: boolean }): ReportQuery {
  const query: ReportQuery = {};
  if (filters.from) query.from = filters.from;
  if (filters.to) query.to = filters.to;
  if (filters.groupBy !== "day") query.groupBy = filters.groupBy;
  if (filters.businessHours) query.businessHours = true;
  if (isOwner && filters.agentId) query.agentId = filters.agentId;
  if (filters.channel) query.channel = filters.channel;
  if (filters.labelId) query.labelId = filters.labelId;
  return query;
}

/** The heatmap's parameters: it counts every incoming message by hour, per channel only. */
export function heatmapQuery(query: ReportQuery): ReportQuery {
  const heatmap: ReportQuery = {};
  if (query.from) heatmap.from = query.from;
  if (query.to) heatmap.to = query.to;
  if (query.channel) heatmap.channel = query.channel;
  return heatmap;
}

const QUERY_ORDER = ["from", "to", "groupBy", "businessHours", "agentId", "channel", "labelId"] as const;

/** `query` as a query string in a fixed order: the same question gives the same string (a cache key). */
export function reportQueryString(query: ReportQuery): string {
  const params = new URLSearchParams();
  for (const name of QUERY_ORDER) {
    const value = query[name];
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  return params.toString();
}

// ---- how figures read -------------------------------------------------------------------------

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY_SECONDS = 24 * HOUR;

/**
 * A duration as people read it, to its two largest units: "45 s", "4 min", "1 h 5 min",
 * "2 d 3 h"; rounded to the smaller unit shown. "—" when there is none.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
  const s = Math.max(0, Math.round(seconds));
  if (s < MINUTE) return `${s} s`;
  const minutes = Math.round(s / MINUTE);
  if (minutes < 60) return `${minutes} min`;
  if (s < DAY_SECONDS) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    if (h < 24) return m ? `${h} h ${m} min` : `${h} h`;
  }
  const hours = Math.round(s / HOUR);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** Steps a duration axis may count in: round seconds, minutes, hours and days. */
const DURATION_STEPS = [15, 30, MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR]
  .concat([1, 2, 7, 14, 30].map((days) => days * DAY_SECONDS));

/**
 * A duration axis's ticks from 0 past `max` seconds, at most `most` steps of a round length
 * (5 min, 1 h, 1 d...), so each reads short: "0 s", "30 min", "1 h", "1 h 30 min".
 */
export function durationTicks(max: number, most = 5): number[] {
  const top = Math.max(0, max);
  const step = DURATION_STEPS.find((s) => top / s <= most) ?? Math.ceil(top / most / DAY_SECONDS) * DAY_SECONDS;
  const count = Math.max(1, Math.ceil(top / step));
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

/** A share (0..1) as a whole percentage, "—" when there is none. */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return "—";
  return `${Math.round(score * 100)}%`;
}

export function plural(count: number, one: string, other: string): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : other}`;
}

function dayDate(day: string): Date | null {
  const at = dayValue(day);
  return at === null ? null : new Date(at);
}

/** A period in full, for tables: "12 Mar 2026", "Week of 9 Mar 2026", "March 2026". */
export function periodLabel(period: string, groupBy: ReportGroupBy, locale?: string): string {
  const date = dayDate(period);
  if (!date) return period;
  if (groupBy === "month") return date.toLocaleDateString(locale, { timeZone: "UTC", month: "long", year: "numeric" });
  const day = date.toLocaleDateString(locale, { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });
  return groupBy === "week" ? `Week of ${day}` : day;
}

/** A period on a chart's axis: "12 Mar", or "Mar 2026" for months. */
export function periodTick(period: string, groupBy: ReportGroupBy, locale?: string): string {
  const date = dayDate(period);
  if (!date) return period;
  return groupBy === "month"
    ? date.toLocaleDateString(locale, { timeZone: "UTC", month: "short", year: "numeric" })
    : date.toLocaleDateString(locale, { timeZone: "UTC", day: "numeric", month: "short" });
}

/** The range a report covers: "1 Mar 2026 – 30 Mar 2026 (Europe/Paris), business hours only". */
export function rangeText(range: ReportRange, locale?: string): string {
  const day = (value: string) => periodLabel(value, "day", locale);
  return `${day(range.from)} – ${day(range.to)} (${range.timeZone})${range.businessHours ? ", business hours only" : ""}`;
}

// ---- summaries ----------------------------------------------------------------------------------

export function isVolumeEmpty(total: VolumeTotal): boolean {
  return total.created === 0 && total.resolved === 0 && total.reopened === 0;
}

/** "132 conversations created, 120 resolved, 4 reopened." */
export function volumeSummary(total: VolumeTotal): string {
  if (isVolumeEmpty(total)) return "No conversations in this range.";
  return `${plural(total.created, "conversation", "conversations")} created, ${total.resolved.toLocaleString("en-US")} resolved, ${total.reopened.toLocaleString("en-US")} reopened.`;
}

/** "Median 4 min, p90 25 min over 132 first responses." */
export function timeSummary(total: TimeTotal, noun: { one: string; other: string }): string {
  if (total.count === 0) return `No ${noun.other} in this range.`;
  return `Median ${formatDuration(total.median)}, p90 ${formatDuration(total.p90)} over ${plural(total.count, noun.one, noun.other)}.`;
}

/** "82% satisfied: 41 of 50 ratings were 4 or 5." */
export function csatSummary(total: CsatTotal): string {
  if (total.responses === 0) return "No ratings in this range.";
  return `${formatScore(total.score)} satisfied: ${total.satisfied.toLocaleString("en-US")} of ${plural(total.responses, "rating", "ratings")} ${total.satisfied === 1 ? "was" : "were"} 4 or 5.`;
}

// ---- CSAT ---------------------------------------------------------------------------------------

export const RATINGS = [1, 2, 3, 4, 5] as const;

/** Satisfied: a rating of 4 or 5. */
export function isSatisfied(rating: number): boolean {
  return rating >= 4;
}

/** Ratings 1 to 5 in order, each with its count (0 when the answer lacks it). */
export function fillDistribution(distribution: readonly RatingCount[]): RatingCount[] {
  return RATINGS.map((rating) => ({
    rating,
    count: distribution.filter((entry) => entry.rating === rating).reduce((sum, entry) => sum + entry.count, 0),
  }));
}

/** A count's share of `total`, for a table: "25%" ("—" when there is nothing to share). */
export function shareText(count: number, total: number): string {
  return total > 0 ? formatScore(count / total) : "—";
}

// ---- the heatmap ------------------------------------------------------------------------------

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
export const HOURS = Array.from({ length: 24 }, (_, hour) => hour);

/** Seven rows (Monday first) of 24 hours: each cell's incoming messages, 0 where the answer has none. */
export function heatmapGrid(cells: readonly HeatmapCell[]): number[][] {
  const grid = WEEKDAYS.map(() => HOURS.map(() => 0));
  for (const cell of cells) {
    const row = grid[cell.weekday - 1];
    if (row && cell.hour >= 0 && cell.hour < 24) row[cell.hour] = (row[cell.hour] ?? 0) + cell.messages;
  }
  return grid;
}

export function heatmapMax(grid: readonly (readonly number[])[]): number {
  return grid.reduce((max, row) => Math.max(max, ...row), 0);
}

/** The number of shades besides "none". */
export const HEATMAP_LEVELS = 4;

/** A cell's shade: 0 for no messages, else 1 to 4 by its share of the busiest hour. */
export function heatmapLevel(count: number, max: number): number {
  if (count <= 0 || max <= 0) return 0;
  return Math.min(HEATMAP_LEVELS, Math.max(1, Math.ceil((count / max) * HEATMAP_LEVELS)));
}

/** "09:00". */
export function hourLabel(hour: number): string {
  return `${pad(hour)}:00`;
}

/** "Monday 09:00–10:00: 12 incoming messages". */
export function heatmapCellLabel(weekday: number, hour: number, count: number): string {
  const name = WEEKDAYS[weekday - 1] ?? `Day ${weekday}`;
  const end = hour === 23 ? "24:00" : hourLabel(hour + 1);
  return `${name} ${hourLabel(hour)}–${end}: ${plural(count, "incoming message", "incoming messages")}`;
}

/** "The busiest hour: Monday 09:00–10:00, 12 incoming messages, of 340 in all." */
export function heatmapSummary(grid: readonly (readonly number[])[]): string {
  const total = grid.reduce((sum, row) => sum + row.reduce((s, n) => s + n, 0), 0);
  if (total === 0) return "No incoming messages in this range.";
  let best = { weekday: 1, hour: 0, count: -1 };
  grid.forEach((row, day) =>
    row.forEach((count, hour) => {
      if (count > best.count) best = { weekday: day + 1, hour, count };
    }),
  );
  const name = WEEKDAYS[best.weekday - 1] ?? "";
  const end = best.hour === 23 ? "24:00" : hourLabel(best.hour + 1);
  return `${plural(total, "incoming message", "incoming messages")}; the busiest hour was ${name} ${hourLabel(best.hour)}–${end} with ${best.count.toLocaleString("en-US")}.`;
}

// ---- CSV files --------------------------------------------------------------------------------

/** The API's name for a report's CSV file: `<metric>-<from>-<to>.csv`. */
export function reportFileName(metric: ReportMetric, range: Pick<ReportRange, "from" | "to"> | null): string {
  return range ? `${metric}-${range.from}-${range.to}.csv` : `${metric}.csv`;
}

/**
 * The file name a `Content-Disposition` header gives, reduced to a safe base name; `fallback`
 * without one (the API does not expose the header across origins).
 */
export function csvFileName(contentDisposition: string | null | undefined, fallback: string): string {
  const match = /filename="?([^";]+)"?/i.exec(contentDisposition ?? "");
  const name = match?.[1]?.split(/[\\/]/).pop()?.trim();
  return name && /\.csv$/i.test(name) ? name : fallback;
}
