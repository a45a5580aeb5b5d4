import { describe, expect, it } from "vitest";
import { isExpired, RENEW_MARGIN_MS, renewalDelay, tokenExpiry, tokenSubject } from "./renewal";
import { worthRetrying } from "./useRenewal";

const now = Date.parse("2026-11-23T10:00:00Z");

describe("workspace token renewal", () => {
  it("is scheduled five minutes before expiry", () => {
    expect(renewalDelay("2026-11-23T11:00:00Z", now)).toBe(55 * 60_000);
    expect(renewalDelay("2026-11-23T10:05:01Z", now)).toBe(1000);
  });

  it("is due at once inside the margin, after expiry, or for an unreadable date", () => {
    expect(renewalDelay("2026-11-23T10:04:59Z", now)).toBe(0);
    expect(renewalDelay("2026-11-23T09:00:00Z", now)).toBe(0);
    expect(renewalDelay("soon", now)).toBe(0);
  });

  it("never exceeds what setTimeout can hold", () => {
    expect(renewalDelay("2099-01-01T00:00:00Z", now)).toBe(2_147_483_647);
  });

  it("knows an expired token", () => {
    expect(isExpired("2026-11-23T10:00:00Z", now)).toBe(true);
    expect(isExpired(new Date(now + RENEW_MARGIN_MS).toISOString(), now)).toBe(false);
    expect(isExpired("garbage", now)).toBe(true);
  });
});

describe("a user token's expiry", () => {
  const jwt = (payload: object) =>
    ["e30", btoa(JSON.stringify(payload)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""), "sig"].join(".");

  it("is read from its exp claim", () => {
    expect(tokenExpiry(jwt({ sub: "u1", exp: 1_795_000_000 }))).toBe(new Date(1_795_000_000_000).toISOString());
  });

  it("is unknown for a token it cannot read", () => {
    expect(tokenExpiry("not-a-jwt")).toBeNull();
    expect(tokenExpiry("a.%%%.c")).toBeNull();
    expect(tokenExpiry(jwt({ sub: "u1" }))).toBeNull();
  });

  it("comes with the account it names, the same across renewals", () => {
    expect(tokenSubject(jwt({ sub: "u1", exp: 1 }))).toBe("u1");
    expect(tokenSubject(jwt({ sub: "u1", exp: 2 }))).toBe("u1");
    expect(tokenSubject(null)).toBeNull();
    expect(tokenSubject("not-a-jwt")).toBeNull();
  });
});

describe("a failed renewal", () => {
  it("is tried again for what may pass, not for a refusal", () => {
    expect([null, 429, 500, 503].map(worthRetrying)).toEqual([true, true, true, true]);
    expect([400, 401, 403, 404].map(worthRetrying)).toEqual([false, false, false, false]);
  });
});
