// When to renew the visitor token and how long to wait between retries (the hub's reconnect
// backoff is the shared one, @supportdesk/shared/hub). Visitor tokens live one
// hour; the page asks the loader for a fresh session a little before expiry (5 minutes, or a
// fifth of a shorter lifetime), so background-tab timer throttling cannot make it late.
// The device's clock may be wrong by hours: the lifetime is read from the token itself
// (exp - iat) and counted from when the session arrived, never compared with `expiresAt`.

import { ApiError } from "./api";

const MINUTE = 60_000;
export const RENEW_MARGIN_MS = 5 * MINUTE;
/** Never renew sooner than this after a session arrived, whatever the token says. */
export const MIN_RENEW_DELAY_MS = MINUTE;
/** At most one renewal request a minute, whatever asks for it (timer, 401s, reconnects, retries). */
export const RENEW_THROTTLE_MS = MINUTE;
/** Retries of a failed session request when the API gave no Retry-After. */
export const DEFAULT_RETRY_MS = 30_000;

/**
 * The JWT's `iat` and `exp` (seconds), read from its payload; null when it cannot be read. Not
 * verified: the API checks the token, this only decides when to renew it and what time the API
 * thinks it is.
 */
function tokenTimes(token: string): { iat: number; exp: number } | null {
  try {
    const payload = token.split(".")[1];
    if (!payload) return null;
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown; iat?: unknown };
    if (typeof claims.exp !== "number" || typeof claims.iat !== "number") return null;
    return { iat: claims.iat, exp: claims.exp };
  } catch {
    return null;
  }
}

/** Milliseconds from issue to expiry (`exp - iat`); null when the token cannot be read. */
export function tokenLifetime(token: string): number | null {
  const times = tokenTimes(token);
  if (!times) return null;
  const lifetime = (times.exp - times.iat) * 1000;
  return lifetime > 0 ? lifetime : null;
}

/**
 * How far the API's clock is ahead of this device's (ms, negative when behind), from a token
 * issued just before it arrived (at `receivedAt`, local clock): its `iat` less `receivedAt`.
 * 0 when the token cannot be read. Good to a second or two: enough to time what the API
 * decides by its own clock (when business hours begin or end).
 */
export function clockOffset(token: string, receivedAt: number): number {
  const times = tokenTimes(token);
  return times ? times.iat * 1000 - receivedAt : 0;
}

/**
 * Milliseconds after a session arrived (at `receivedAt`, local clock) until the page should ask
 * for a fresh token: the token's lifetime less the margin, at least MIN_RENEW_DELAY_MS. Only
 * when the token is unreadable does `expiresAt` count, against the local clock.
 */
export function renewalDelay(session: { token: string; expiresAt: string }, receivedAt: number): number {
  const lifetime = tokenLifetime(session.token) ?? Date.parse(session.expiresAt) - receivedAt;
  if (!Number.isFinite(lifetime)) return MIN_RENEW_DELAY_MS;
  return Math.max(MIN_RENEW_DELAY_MS, Math.round(lifetime - Math.min(RENEW_MARGIN_MS, lifetime / 5)));
}

/** How long a renewal asked at `now` waits: none, or until a minute after the last one (`last`). */
export function renewalWait(now: number, last: number | null): number {
  return last === null ? 0 : Math.max(0, last + RENEW_THROTTLE_MS - now);
}

/** After a failed session request: Retry-After (seconds) if known, kept within 1 s..10 min. */
export function sessionRetryDelay(retryAfterSeconds: number | null): number {
  if (retryAfterSeconds === null) return DEFAULT_RETRY_MS;
  return Math.min(10 * MINUTE, Math.max(1000, retryAfterSeconds * 1000));
}

/** Permanent refusals (bad origin, unknown site key, bad identity hash) are not retried. */
export function sessionErrorRetryable(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** Sending is refused this long after the hub said "too many" without saying for how long. */
export const SEND_BLOCK_MS = 10_000;

/**
 * Until when (ms) sending is blocked after `error`, or null when it was no rate limit: a REST
 * 429's Retry-After (SEND_BLOCK_MS when the browser could not read it), or SEND_BLOCK_MS when a
 * hub error says "too many".
 */
export function sendBlockedUntil(error: unknown, now: number): number | null {
  if (error instanceof ApiError) {
    return error.status === 429 ? now + (error.problem.retryAfter ?? SEND_BLOCK_MS / 1000) * 1000 : null;
  }
  return /too many/i.test(error instanceof Error ? error.message : String(error)) ? now + SEND_BLOCK_MS : null;
}

/** Whole seconds left until `until` (rounded up), 0 when past. */
export function secondsLeft(until: number | null, now: number): number {
  return until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}
