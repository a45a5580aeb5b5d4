// When to renew the visitor token and how long to wait between retries. Visitor tokens live one
// hour; the page asks the loader for a fresh session a little before expiry (5 minutes, or a
// fifth of a shorter lifetime), so background-tab timer throttling cannot make it late.

const MINUTE = 60_000;
export const RENEW_MARGIN_MS = 5 * MINUTE;
/** Retries of a failed session request when the API gave no Retry-After. */
export const DEFAULT_RETRY_MS = 30_000;
const HUB_RETRIES_MS = [0, 1000, 2000, 5000, 10_000, 30_000];

/** Milliseconds from `now` until the page should ask for a fresh token; 0 if already due. */
export function renewalDelay(expiresAt: string, now: number): number {
  const left = Date.parse(expiresAt) - now;
  if (!Number.isFinite(left) || left <= 0) return 0;
  return Math.max(0, Math.round(left - Math.min(RENEW_MARGIN_MS, left / 5)));
}

/** True when the token is expired or close enough to expiry to renew it right away. */
export function renewalDue(expiresAt: string, now: number): boolean {
  return renewalDelay(expiresAt, now) === 0;
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

/**
 * Hub reconnect backoff, forever (capped at 30 s): a widget left open should come back by itself
 * after any outage. The server's Close with allowReconnect: false still ends it for good.
 */
export function hubRetryDelay(previousRetryCount: number): number {
  return HUB_RETRIES_MS[Math.min(previousRetryCount, HUB_RETRIES_MS.length - 1)] ?? 30_000;
}
