// When to renew the workspace token. Workspace tokens live one hour; the dashboard asks for a
// fresh one (POST /workspaces/{id}/select with the user token) five minutes before expiry, so
// background-tab timer throttling cannot make it late. Pure, for unit tests.

const MINUTE = 60_000;
export const RENEW_MARGIN_MS = 5 * MINUTE;
/** Wait before retrying a renewal that failed for a reason other than 401/403. */
export const RENEW_RETRY_MS = 30_000;
/** setTimeout holds 32-bit delays; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Milliseconds from `now` until the token should be renewed; 0 if due already (or unreadable). */
export function renewalDelay(expiresAt: string, now: number): number {
  const at = Date.parse(expiresAt);
  if (!Number.isFinite(at)) return 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, at - RENEW_MARGIN_MS - now));
}

/** True once the token has expired: it must not be sent any more. */
export function isExpired(expiresAt: string, now: number): boolean {
  const at = Date.parse(expiresAt);
  return !Number.isFinite(at) || at <= now;
}
