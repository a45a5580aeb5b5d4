import { describe, expect, it } from "vitest";
import {
  envelope,
  fromExpected,
  parseFromLoader,
  parseFromWidget,
  parseIdentity,
  sameIdentity,
  type WidgetSession,
} from "./protocol";

const session: WidgetSession = {
  token: "tok",
  visitorId: "v1",
  expiresAt: "2030-01-01T00:00:00Z",
  workspace: { name: "Acme", branding: { name: null, color: "#112233", logoUrl: null, widgetGreeting: "Hi" } },
  agentsOnline: false,
};

const page = { url: "https://shop.example/cart?step=2", title: "Cart", referrer: "https://search.example/" };

describe("origin and source checks", () => {
  const frame = {};
  it("accepts only the expected window from the expected origin", () => {
    expect(fromExpected({ source: frame, origin: "https://w.example" }, frame, "https://w.example")).toBe(true);
    expect(fromExpected({ source: {}, origin: "https://w.example" }, frame, "https://w.example")).toBe(false);
    expect(fromExpected({ source: frame, origin: "https://evil.example" }, frame, "https://w.example")).toBe(false);
    expect(fromExpected({ source: frame, origin: "https://w.example" }, frame, null)).toBe(false);
    expect(fromExpected({ source: null, origin: "https://w.example" }, null, "https://w.example")).toBe(false);
  });
});

describe("messages from the widget", () => {
  it("reads tagged messages", () => {
    expect(parseFromWidget(envelope({ type: "ready" }))).toEqual({ type: "ready" });
    expect(parseFromWidget(envelope({ type: "visitor", visitorId: "v1", stored: true }))).toEqual({
      type: "visitor",
      visitorId: "v1",
      stored: true,
    });
    expect(parseFromWidget(envelope({ type: "visitor", visitorId: null, stored: false }))).toEqual({
      type: "visitor",
      visitorId: null,
      stored: false,
    });
    expect(parseFromWidget(envelope({ type: "renew" }))).toEqual({ type: "renew" });
    expect(parseFromWidget(envelope({ type: "close" }))).toEqual({ type: "close" });
    expect(parseFromWidget(envelope({ type: "unread", count: 2 }))).toEqual({ type: "unread", count: 2 });
    expect(parseFromWidget(envelope({ type: "unread", count: 0 }))).toEqual({ type: "unread", count: 0 });
  });

  it("ignores anything else", () => {
    const others = [
      null,
      "ready",
      1,
      { type: "ready" },
      { supportdesk: 2, type: "ready" },
      { supportdesk: 1, type: "nope" },
      { supportdesk: 1, type: "visitor", visitorId: 5, stored: true },
      { supportdesk: 1, type: "visitor", visitorId: "v1" },
      envelope({ type: "hello", siteKey: "swk", page: null }),
      { supportdesk: 1, type: "unread", count: -1 },
      { supportdesk: 1, type: "unread", count: 1.5 },
      { supportdesk: 1, type: "unread", count: "2" },
      { supportdesk: 1, type: "unread" },
    ];
    for (const data of others) {
      expect(parseFromWidget(data)).toBeNull();
    }
  });
});

describe("messages from the loader", () => {
  it("reads hello, page, session, session-error, open and closed", () => {
    expect(parseFromLoader(envelope({ type: "hello", siteKey: "swk_1", page }))).toEqual({ type: "hello", siteKey: "swk_1", page });
    // A loader from before the page field (cached on the customer's page) still says hello.
    expect(parseFromLoader({ supportdesk: 1, type: "hello", siteKey: "swk_1" })).toEqual({ type: "hello", siteKey: "swk_1", page: null });
    expect(parseFromLoader(envelope({ type: "page", page }))).toEqual({ type: "page", page });
    expect(parseFromLoader(envelope({ type: "open" }))).toEqual({ type: "open" });
    expect(parseFromLoader(envelope({ type: "closed" }))).toEqual({ type: "closed" });
    expect(parseFromLoader({ type: "open" })).toBeNull();
    expect(parseFromLoader(envelope({ type: "session", reason: "new", session }))).toEqual({ type: "session", reason: "new", session });
    expect(
      parseFromLoader({ supportdesk: 1, type: "session-error", reason: "renew", status: 429, detail: "Slow down", retryAfter: 30 }),
    ).toEqual({ type: "session-error", reason: "renew", status: 429, detail: "Slow down", retryAfter: 30 });
    expect(parseFromLoader({ supportdesk: 1, type: "session-error", reason: "new", status: 0, detail: "x" })).toMatchObject({ retryAfter: null });
  });

  it("refuses malformed sessions", () => {
    const bad = [
      { ...session, token: "" },
      { ...session, agentsOnline: "yes" },
      { ...session, workspace: { name: "Acme" } },
      { ...session, workspace: { name: "Acme", branding: { ...session.workspace.branding, color: 3 } } },
    ];
    for (const s of bad) expect(parseFromLoader(envelope({ type: "session", reason: "new", session: s as WidgetSession }))).toBeNull();
    expect(parseFromLoader({ supportdesk: 1, type: "session", reason: "other", session })).toBeNull();
    expect(parseFromLoader({ supportdesk: 1, type: "hello", siteKey: "" })).toBeNull();
    expect(parseFromLoader({ type: "hello", siteKey: "swk" })).toBeNull();
  });

  it("refuses malformed host pages", () => {
    const bad = [null, "https://shop.example/", { url: "https://shop.example/", title: "Shop" }, { ...page, url: 1 }, { ...page, referrer: null }];
    for (const p of bad) {
      expect(parseFromLoader({ supportdesk: 1, type: "page", page: p })).toBeNull();
      expect(parseFromLoader({ supportdesk: 1, type: "hello", siteKey: "swk", page: p })).toBeNull();
    }
    expect(parseFromLoader({ supportdesk: 1, type: "page" })).toBeNull();
  });
});

describe("identify()", () => {
  it("keeps the known fields", () => {
    expect(parseIdentity({ externalId: "u1", email: "a@b.c", name: "Ann", hash: "ab", extra: 1 })).toEqual({
      externalId: "u1",
      email: "a@b.c",
      name: "Ann",
      hash: "ab",
    });
    expect(parseIdentity({ externalId: "u1" })).toEqual({ externalId: "u1" });
  });

  it("refuses what the API could not take", () => {
    expect(parseIdentity(null)).toBeNull();
    expect(parseIdentity({ email: "a@b.c" })).toBeNull();
    expect(parseIdentity({ externalId: "", hash: "x" })).toBeNull();
    expect(parseIdentity({ externalId: "u1", hash: 12 })).toBeNull();
  });

  it("tells the same identity again from a change", () => {
    const ida = { externalId: "u1", email: "a@b.c", name: "Ida", hash: "ab" };
    expect(sameIdentity(null, ida)).toBe(false);
    expect(sameIdentity(ida, { ...ida })).toBe(true);
    expect(sameIdentity(parseIdentity({ ...ida, extra: 1 }), parseIdentity(ida)!)).toBe(true);
    for (const change of [{ externalId: "u2" }, { email: "x@b.c" }, { name: "Ada" }, { hash: "cd" }]) {
      expect(sameIdentity(ida, { ...ida, ...change })).toBe(false);
    }
    expect(sameIdentity({ externalId: "u1" }, { externalId: "u1", email: "a@b.c" })).toBe(false);
  });
});
