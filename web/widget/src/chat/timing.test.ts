import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_MS,
  hubRetryDelay,
  RENEW_MARGIN_MS,
  renewalDelay,
  renewalDue,
  sessionErrorRetryable,
  sessionRetryDelay,
} from "./timing";

const now = Date.parse("2030-01-01T00:00:00Z");
const at = (ms: number) => new Date(now + ms).toISOString();

describe("token renewal", () => {
  it("renews an hour-long token five minutes early", () => {
    expect(renewalDelay(at(3_600_000), now)).toBe(3_600_000 - RENEW_MARGIN_MS);
  });

  it("renews a short-lived token at four fifths of its life", () => {
    expect(renewalDelay(at(60_000), now)).toBe(48_000);
  });

  it("renews at once when expired or unreadable", () => {
    expect(renewalDelay(at(-1000), now)).toBe(0);
    expect(renewalDelay("not a date", now)).toBe(0);
    expect(renewalDue(at(-1), now)).toBe(true);
    expect(renewalDue(at(3_600_000), now)).toBe(false);
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

  it("backs off hub reconnects up to 30 s, forever", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 100].map(hubRetryDelay)).toEqual([0, 1000, 2000, 5000, 10_000, 30_000, 30_000, 30_000]);
  });
});
