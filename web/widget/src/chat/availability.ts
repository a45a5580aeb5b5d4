// When to ask the API again whether the team is within its business hours. The API decides, by
// its own clock, and says when that next changes (`changesAt`): the chat reads it again just
// after then, counted on the API's clock (the device's may be wrong by hours; see clockOffset),
// and at least hourly whatever it said, since an owner may change the hours meanwhile.

import { ApiError } from "./api";

const MINUTE = 60_000;
/** The longest wait between two reads: hours changed by an owner show within the hour. */
export const AVAILABILITY_MAX_WAIT_MS = 60 * MINUTE;
/** Past `changesAt` by this much, so that the API has surely moved on when asked. */
export const AVAILABILITY_SLACK_MS = 2_000;
/** Never sooner: a clock estimate a little off costs a few reads around a change, not a loop. */
export const AVAILABILITY_MIN_WAIT_MS = 5_000;
/** After a read that failed and may pass later (network, expired token, rate limit, 5xx). */
export const AVAILABILITY_RETRY_MS = MINUTE;

/** Milliseconds from `apiNow` (the API's clock, ms) until the next read, within the bounds above. */
export function availabilityRecheckDelay(changesAt: string | null, apiNow: number): number {
  const at = changesAt === null ? NaN : Date.parse(changesAt);
  if (!Number.isFinite(at)) return AVAILABILITY_MAX_WAIT_MS;
  return Math.min(AVAILABILITY_MAX_WAIT_MS, Math.max(AVAILABILITY_MIN_WAIT_MS, at - apiNow + AVAILABILITY_SLACK_MS));
}

/** "in under a minute", "in about 25 minutes", "in about 3 hours", "in about 2 days": how long a first reply usually takes. */
export function replyTimeText(seconds: number): string {
  if (seconds < 60) return "in under a minute";
  const plural = (n: number, unit: string) => `in about ${n} ${unit}${n === 1 ? "" : "s"}`;
  if (seconds < 3600) {
    const minutes = Math.ceil(seconds / 60);
    return plural(minutes > 10 ? Math.round(minutes / 5) * 5 : minutes, "minute");
  }
  if (seconds < 86_400) return plural(Math.round(seconds / 3600), "hour");
  return plural(Math.round(seconds / 86_400), "day");
}

/** Milliseconds until the next read after a failed one: soon when it may pass, else the longest wait. */
export function availabilityRetryDelay(error: unknown): number {
  if (!(error instanceof ApiError)) return AVAILABILITY_RETRY_MS;
  const { status } = error;
  const passing = status === 0 || status === 401 || status === 408 || status === 429 || status >= 500;
  return passing ? AVAILABILITY_RETRY_MS : AVAILABILITY_MAX_WAIT_MS;
}
