// When to renew the tokens. User and workspace tokens live one hour; the dashboard asks for
// fresh ones (POST /auth/refresh with the user token, POST /workspaces/{id}/select for the
// workspace token) five minutes before they expire, so background-tab timer throttling cannot
// make it late. Pure, for unit tests.

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

/** A JWT's claims, unverified (the server verifies); null when they cannot be read. */
function claimsOf(token: string): Record<string, unknown> | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const claims: unknown = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    return claims && typeof claims === "object" ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * When a JWT expires (its `exp`), as an ISO date; null when it cannot be read. Read from our
 * own token only to schedule its renewal: the server decides whether it is still good.
 */
export function tokenExpiry(token: string): string | null {
  const exp = claimsOf(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? new Date(exp * 1000).toISOString() : null;
}

/** The account a user token names (its `sub`): the same across renewals; null for none. */
export function tokenSubject(token: string | null): string | null {
  const sub = token ? claimsOf(token)?.sub : null;
  return typeof sub === "string" ? sub : null;
}
