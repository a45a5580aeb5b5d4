import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import {
  clockOffset,
  DEFAULT_RETRY_MS,
  MIN_RENEW_DELAY_MS,
  RENEW_MARGIN_MS,
  RENEW_THROTTLE_MS,
  renewalDelay,
  renewalWait,
  secondsLeft,
  SEND_BLOCK_MS,
  sendBlockedUntil,
  sessionErrorRetryable,
  sessionRetryDelay,
  tokenLifetime,
} from "./timing";

const now = Date.parse("2030-01-01T00:00:00Z");
const at = (ms: number) => new Date(now + ms).toISOString();

/** An unsigned JWT with these claims (base64url, no padding). */
function jwt(claims: object): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}.sig`;
}
const iat = 1_700_000_000;

describe("token renewal", () => {
  it("reads the lifetime from the token", () => {
    expect(tokenLifetime(jwt({ iat, exp: iat + 3600, sub: "visitor-ü" }))).toBe(3_600_000);
    expect(tokenLifetime(jwt({ exp: iat + 3600 }))).toBeNull();
    expect(tokenLifetime(jwt({ iat, exp: iat }))).toBeNull();
    expect(tokenLifetime("opaque")).toBeNull();
    expect(tokenLifetime("a.!!!.c")).toBeNull();
  });

  it("renews an hour-long token five minutes early, whatever the device's clock says", () => {
    const token = jwt({ iat, exp: iat + 3600 });
    // expiresAt is in the past by the device's clock (set two hours ahead): no matter.
    expect(renewalDelay({ token, expiresAt: at(-3_600_000) }, now)).toBe(3_600_000 - RENEW_MARGIN_MS);
    expect(renewalDelay({ token, expiresAt: at(99 * 3_600_000) }, now)).toBe(3_600_000 - RENEW_MARGIN_MS);
  });

  it("renews a short-lived token at four fifths of its life", () => {
    expect(renewalDelay({ token: jwt({ iat, exp: iat + 600 }), expiresAt: "" }, now)).toBe(480_000);
  });

  it("falls back to expiresAt for an unreadable token, and never renews within a minute", () => {
    expect(renewalDelay({ token: "opaque", expiresAt: at(3_600_000) }, now)).toBe(3_600_000 - RENEW_MARGIN_MS);
    expect(renewalDelay({ token: "opaque", expiresAt: at(-1000) }, now)).toBe(MIN_RENEW_DELAY_MS);
    expect(renewalDelay({ token: "opaque", expiresAt: "not a date" }, now)).toBe(MIN_RENEW_DELAY_MS);
    expect(renewalDelay({ token: jwt({ iat, exp: iat + 30 }), expiresAt: "" }, now)).toBe(MIN_RENEW_DELAY_MS);
  });

  it("throttles every renewal request, forced or not, to one a minute", () => {
    expect(renewalWait(now, null)).toBe(0);
    expect(renewalWait(now, now - RENEW_THROTTLE_MS)).toBe(0);
    expect(renewalWait(now, now - 1000)).toBe(RENEW_THROTTLE_MS - 1000);
    // Asked right after a request (a 401 just after a renewal, a quick retry): a minute later.
    expect(renewalWait(now, now)).toBe(RENEW_THROTTLE_MS);
  });
});

describe("the API's clock", () => {
  it("is the token's issue time against the device's clock when it arrived", () => {
    const token = jwt({ iat, exp: iat + 3600 });
    expect(clockOffset(token, iat * 1000)).toBe(0);
    // The device's clock two hours ahead: the API's is two hours behind it.
    expect(clockOffset(token, iat * 1000 + 7_200_000)).toBe(-7_200_000);
    expect(clockOffset(token, iat * 1000 - 1500)).toBe(1500);
  });

  it("is taken as the device's own when the token cannot be read", () => {
    expect(clockOffset("opaque", now)).toBe(0);
    expect(clockOffset(jwt({ sub: "v" }), now)).toBe(0);
  });
});

describe("retries", () => {
  it("follows Retry-After within bounds", () => {
    expect(sessionRetryDelay(null)).toBe(DEFAULT_RETRY_MS);
    expect(sessionRetryDelay(12)).toBe(12_000);
    expect(sessionRetryDelay(0)).toBe(1000);
    expect(sessionRetryDelay(86_400)).toBe(600_000);
  });

  it("retries only what may pass later", () => {
    expect([0, 408, 429, 500, 503].every(sessionErrorRetryable)).toBe(true);
    expect([400, 401, 403, 404].some(sessionErrorRetryable)).toBe(false);
  });
});

describe("rate limits on sending", () => {
  const problem = (status: number, retryAfter: number | null) => new ApiError({ status, detail: "x", retryAfter });

  it("blocks for a REST 429's Retry-After, or a short while when it is unreadable", () => {
    expect(sendBlockedUntil(problem(429, 42), now)).toBe(now + 42_000);
    expect(sendBlockedUntil(problem(429, null), now)).toBe(now + SEND_BLOCK_MS);
    expect(sendBlockedUntil(problem(500, 42), now)).toBeNull();
    expect(sendBlockedUntil(problem(400, null), now)).toBeNull();
  });

  it("blocks briefly when the hub says too many", () => {
    expect(sendBlockedUntil(new Error("too many messages; slow down"), now)).toBe(now + SEND_BLOCK_MS);
    expect(sendBlockedUntil(new Error("Invocation canceled"), now)).toBeNull();
  });

  it("counts whole seconds down", () => {
    expect(secondsLeft(null, now)).toBe(0);
    expect(secondsLeft(now + 9001, now)).toBe(10);
    expect(secondsLeft(now + 1000, now)).toBe(1);
    expect(secondsLeft(now - 5, now)).toBe(0);
  });
});
