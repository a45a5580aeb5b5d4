import { describe, expect, it } from "vitest";
import {
  actionLabel,
  actorBadge,
  AUDIT_ACTIONS,
  auditAge,
  auditCountText,
  auditPage,
  type AuditEntry,
  type AuditFilters,
  auditQuery,
  auditQueryString,
  csvFileName,
  dateRangeError,
  describeEntry,
  exactTime,
  fieldLabel,
  hasFilters,
  NO_FILTERS,
  valueText,
} from "./audit";

const entry = (type: string, changes: unknown, id: string | null = "t-1"): Pick<AuditEntry, "target" | "changes"> => ({
  target: { type, id },
  changes: changes as AuditEntry["changes"],
});

const filters = (set: Partial<AuditFilters>): AuditFilters => ({ ...NO_FILTERS, ...set });

describe("actionLabel", () => {
  it("names every action the API records, each differently, none as its raw value", () => {
    const labels = AUDIT_ACTIONS.map(actionLabel);
    expect(AUDIT_ACTIONS).toHaveLength(20);
    expect(new Set(labels).size).toBe(AUDIT_ACTIONS.length);
    for (const [i, action] of AUDIT_ACTIONS.entries()) expect(labels[i]).not.toBe(action);
  });
  it("reads people's words", () => {
    expect(actionLabel("member.role_changed")).toBe("Role changed");
    expect(actionLabel("member.signed_in")).toBe("Signed in");
    expect(actionLabel("widget.site_key_regenerated")).toBe("Widget site key regenerated");
    expect(actionLabel("email_settings.changed")).toBe("Email settings changed");
  });
  it("shows an action it does not know as the API wrote it (nothing is hidden)", () => {
    expect(actionLabel("billing.plan_changed")).toBe("billing.plan_changed");
    expect(actionLabel("toString")).toBe("toString");
  });
});

describe("auditPage", () => {
  it("passes a page of entries and refuses text", () => {
    const page = { entries: [], nextCursor: null };
    expect(auditPage(page)).toBe(page);
    expect(() => auditPage("id,at")).toThrow(/not a page of entries/);
  });
});

describe("actorBadge", () => {
  it("marks API keys and operators, not members", () => {
    expect(actorBadge("apiKey")).toBe("API key");
    expect(actorBadge("operator")).toBe("Operator");
    expect(actorBadge("user")).toBeNull();
  });
});

describe("auditQuery and auditQueryString", () => {
  it("asks for nothing without filters", () => {
    expect(auditQuery(NO_FILTERS)).toEqual({});
    expect(auditQueryString(NO_FILTERS)).toBe("");
  });
  it("sends only the filters set, the To day included (the API's `to` is exclusive)", () => {
    const query = auditQuery(filters({ action: "member.role_changed", actor: "u-1", from: "2026-03-01", to: "2026-03-12" }));
    expect(query).toEqual({
      actor: "u-1",
      action: "member.role_changed",
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 2, 13).toISOString(),
    });
  });
  it("writes the parameters in one order, the cursor last, encoded", () => {
    const from = encodeURIComponent(new Date(2026, 2, 1).toISOString());
    expect(auditQueryString(filters({ from: "2026-03-01", action: "api_key.revoked", actor: "u-1" }), "c/1+2")).toBe(
      `actor=u-1&action=api_key.revoked&from=${from}&cursor=c%2F1%2B2`,
    );
    expect(auditQueryString(filters({ action: "member.invited" }), null)).toBe("action=member.invited");
  });
  it("leaves out a date that is not one", () => {
    expect(auditQuery(filters({ from: "2026-02-30", to: "nope" }))).toEqual({});
  });
});

describe("dateRangeError and hasFilters", () => {
  it("objects to a range that runs backwards, only", () => {
    expect(dateRangeError(filters({ from: "2026-03-12", to: "2026-03-01" }))).toMatch(/before the start/);
    expect(dateRangeError(filters({ from: "2026-03-12", to: "2026-03-12" }))).toBeNull();
    expect(dateRangeError(filters({ to: "2026-03-01" }))).toBeNull();
  });
  it("tells whether anything is filtered", () => {
    expect(hasFilters(NO_FILTERS)).toBe(false);
    expect(hasFilters(filters({ to: "2026-03-01" }))).toBe(true);
  });
});

describe("auditCountText", () => {
  it("says how many entries show, whether filtered, and whether older ones remain", () => {
    expect(auditCountText(0, false, false)).toBe("No entries yet.");
    expect(auditCountText(0, false, true)).toBe("No entries match these filters.");
    expect(auditCountText(1, false, false)).toBe("1 entry.");
    expect(auditCountText(1, false, true)).toBe("1 entry matches.");
    expect(auditCountText(50, true, false)).toBe("50 entries so far; older ones can be loaded.");
    expect(auditCountText(3, false, true)).toBe("3 entries match.");
  });
});

describe("fieldLabel and valueText", () => {
  it("reads field names as words", () => {
    expect(fieldLabel("smtp.password")).toBe("SMTP password");
    expect(fieldLabel("allowedOrigins")).toBe("allowed origins");
    expect(fieldLabel("branding.color")).toBe("branding color");
    expect(fieldLabel("imap.tls")).toBe("IMAP TLS");
    expect(fieldLabel("role")).toBe("role");
  });
  it("reads values as words", () => {
    expect(valueText(null)).toBe("none");
    expect(valueText("")).toBe("none");
    expect(valueText(true)).toBe("on");
    expect(valueText(false)).toBe("off");
    expect(valueText(587)).toBe("587");
    expect(valueText(["https://a.example", "https://b.example"])).toBe("https://a.example, https://b.example");
    expect(valueText([])).toBe("none");
    expect(valueText("admin", "role")).toBe("Owner");
    expect(valueText("agent", "target.role")).toBe("Agent");
    expect(valueText("admin", "name")).toBe("admin");
    expect(valueText(["*"], "eventTypes")).toBe("all events");
    expect(valueText({ a: 1 })).toBe('{"a":1}');
  });
});

describe("describeEntry", () => {
  it("a role change: the member by name and email, the role from and to", () => {
    const described = describeEntry(
      entry("member", { role: { from: "agent", to: "admin" }, target: { email: "maya@example.com", name: "Maya Patel" } }),
    );
    expect(described).toEqual({ target: "Member Maya Patel (maya@example.com)", changes: ["role: Agent → Owner"] });
  });
  it("a deactivation: the status, and the member's facts not repeated", () => {
    const described = describeEntry(entry("member", { status: { from: "active", to: "deactivated" }, target: { email: "maya@example.com", name: "" } }));
    expect(described).toEqual({ target: "Member maya@example.com", changes: ["status: active → deactivated"] });
  });
  it("an invitation names who was invited; the role is a fact", () => {
    expect(describeEntry(entry("invitation", { email: "later@example.com", role: "agent" }))).toEqual({
      target: "Invitation for later@example.com",
      changes: ["role: Agent"],
    });
  });
  it("a sign-in: the workspace, with the role it was made in", () => {
    expect(describeEntry(entry("workspace", { role: "admin" }))).toEqual({ target: "Workspace", changes: ["role: Owner"] });
  });
  it("an API key by its name, its prefix as a fact", () => {
    expect(describeEntry(entry("api_key", { name: "CRM", prefix: "sd_1a2b" }))).toEqual({ target: "API key CRM", changes: ["prefix: sd_1a2b"] });
    expect(describeEntry(entry("api_key", {}, "k-9"))).toEqual({ target: "API key k-9", changes: [] });
  });
  it("a webhook by its URL when recorded, else its id", () => {
    expect(describeEntry(entry("webhook", { url: "https://hooks.example.com/in", eventTypes: ["*"], enabled: true }))).toEqual({
      target: "Webhook https://hooks.example.com/in",
      changes: ["event types: all events", "enabled: on"],
    });
    expect(describeEntry(entry("webhook", { enabled: { from: true, to: false } }, "w-1"))).toEqual({ target: "Webhook w-1", changes: ["enabled: on → off"] });
  });
  it("a new mail server is listed field by field; a password only as changed", () => {
    const described = describeEntry(
      entry("email_settings", {
        address: { from: null, to: "help@acme.test" },
        smtp: { from: null, to: { host: "smtp.example.com", port: 587, tls: true, user: "mailer" } },
        "smtp.password": "changed",
      }),
    );
    expect(described.target).toBe("Email settings");
    expect(described.changes).toEqual([
      "address: none → help@acme.test",
      "SMTP host: none → smtp.example.com",
      "SMTP port: none → 587",
      "SMTP TLS: none → on",
      "SMTP user: none → mailer",
      "SMTP password changed",
    ]);
  });
  it("an object that changed says only what moved in it; one removed says so", () => {
    expect(
      describeEntry(
        entry("settings", { branding: { from: { color: "#445566", name: "Acme", logo: { url: null } }, to: { color: "#112233", name: "Acme", logo: { url: "/l.png" } } } }),
      ).changes,
    ).toEqual(["branding color: #445566 → #112233", "branding logo URL: none → /l.png"]);
    expect(describeEntry(entry("email_settings", { imap: { from: { host: "imap.example.com" }, to: null } })).changes).toEqual(["IMAP: removed"]);
  });
  it("the widget's lists and switches", () => {
    expect(
      describeEntry(
        entry("widget", { allowedOrigins: { from: [], to: ["https://shop.example"] }, identityVerification: { from: false, to: true } }),
      ),
    ).toEqual({ target: "Chat widget", changes: ["allowed origins: none → https://shop.example", "identity verification: off → on"] });
  });
  it("nothing recorded is no lines; a target type it does not know reads as words", () => {
    expect(describeEntry(entry("workspace", {}))).toEqual({ target: "Workspace", changes: [] });
    expect(describeEntry(entry("billing_plan", null))).toEqual({ target: "billing plan", changes: [] });
  });
});

describe("auditAge and exactTime", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  it("says how long ago in words", () => {
    expect(auditAge("2026-11-26T11:59:30Z", now, "en")).toBe("just now");
    expect(auditAge("2026-11-26T11:55:00Z", now, "en")).toBe("5 minutes ago");
    expect(auditAge("2026-11-26T09:00:00Z", now, "en")).toBe("3 hours ago");
    expect(auditAge("2026-11-25T11:00:00Z", now, "en")).toBe("yesterday");
    expect(auditAge("2026-11-22T12:00:00Z", now, "en")).toBe("4 days ago");
  });
  it("gives the date beyond a week, nothing for garbage, and now for the future (clock skew)", () => {
    expect(auditAge("2026-03-12T12:00:00Z", now, "en-GB")).toBe("12 Mar 2026");
    expect(auditAge("nope", now)).toBe("");
    expect(auditAge("2026-11-26T12:00:09Z", now, "en")).toBe("just now");
  });
  it("gives the exact time to the second, with the zone", () => {
    const exact = exactTime("2026-11-26T12:34:56Z", "en-GB");
    expect(exact).toContain("2026");
    expect(exact).toMatch(/:56/);
    expect(exactTime("x")).toBe("");
  });
});

describe("csvFileName", () => {
  it("takes the header's name, or audit-log.csv", () => {
    expect(csvFileName('attachment; filename="audit-log.csv"')).toBe("audit-log.csv");
    expect(csvFileName("attachment; filename=log-2026.csv")).toBe("log-2026.csv");
    expect(csvFileName(null)).toBe("audit-log.csv");
    expect(csvFileName('attachment; filename="../../etc/passwd"')).toBe("audit-log.csv");
    expect(csvFileName('attachment; filename="../x.csv"')).toBe("x.csv");
  });
});
