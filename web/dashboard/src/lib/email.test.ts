import { describe, expect, it } from "vitest";
import type { Message } from "@/api/types";
import {
  attachmentLinks,
  mailboxStatusLabel,
  channelLabel,
  deliveryLabel,
  emailCsp,
  emailSrcdoc,
  estimateFrameHeight,
  FRAME_MAX_PX,
  FRAME_MIN_PX,
  hasPendingDelivery,
  hasRemoteImages,
  inlineAttachmentIds,
  partiesLabel,
  partyLabel,
  resolveInlineImages,
  smtpRequest,
  smtpStatusLabel,
  testEmailLabel,
} from "./email";

const email = (from: string, extra: Partial<NonNullable<Message["email"]>> = {}): NonNullable<Message["email"]> => ({
  from: { address: from, name: null },
  to: [{ address: "support@acme.example", name: "Acme" }],
  cc: [],
  subject: "Hello",
  dmarcFailed: false,
  ...extra,
});

const msg = (id: string, kind: Message["kind"], mail: Message["email"] = null): Message => ({
  id,
  kind,
  body: id,
  createdAt: "2026-11-26T10:00:00Z",
  email: mail,
});

describe("parties and channels", () => {
  it("names a party by name and address, or address alone", () => {
    expect(partyLabel({ address: "carla@example.org", name: "Carla Diaz" })).toBe("Carla Diaz <carla@example.org>");
    expect(partyLabel({ address: "carla@example.org", name: null })).toBe("carla@example.org");
    expect(partyLabel({ address: "carla@example.org", name: " carla@example.org " })).toBe("carla@example.org");
    expect(partiesLabel([{ address: "a@x.org" }, { address: "b@x.org", name: "Bea" }])).toBe("a@x.org, Bea <b@x.org>");
    expect(partiesLabel([])).toBe("");
  });
  it("labels channels", () => {
    expect(channelLabel("email")).toBe("Email");
    expect(channelLabel("chat")).toBe("Chat");
    expect(channelLabel("manual")).toBe("Manual");
  });
});

describe("delivery", () => {
  it("reads pending, sent and failed", () => {
    expect(deliveryLabel({ status: "pending" })).toBe("Sending…");
    expect(deliveryLabel({ status: "sent", error: null })).toBe("Sent by email");
    expect(deliveryLabel({ status: "failed", error: "550 5.1.1 No such user" })).toBe("Not delivered: 550 5.1.1 No such user");
    expect(deliveryLabel({ status: "failed", error: null })).toBe("Not delivered: the mail server refused it");
  });
  it("finds replies still waiting to be sent", () => {
    expect(hasPendingDelivery([msg("a", "incoming", email("c@x.org")), msg("b", "outgoing", email("s@x.org", { delivery: { status: "sent" } }))])).toBe(false);
    expect(hasPendingDelivery([msg("b", "outgoing", email("s@x.org", { delivery: { status: "pending" } }))])).toBe(true);
  });
});

describe("inline images", () => {
  const html = `<p>Hi</p><img src="attachment:a1" alt="logo"><img alt=x src='attachment:b2'><img src=attachment:c3><img src="https://t.example/p.gif">`;
  it("finds the files shown inline", () => {
    expect([...inlineAttachmentIds(html)]).toEqual(["a1", "b2", "c3"]);
  });
  it("points each at its file's link, escaped, and empties the unknown ones", () => {
    const out = resolveInlineImages(html, { a1: "https://api.example.com/files/a1?sig=x&exp=1", b2: "https://api.example.com/files/b2" });
    expect(out).toContain(`<img src="https://api.example.com/files/a1?sig=x&amp;exp=1" alt="logo">`);
    expect(out).toContain(`<img alt=x src="https://api.example.com/files/b2">`);
    expect(out).toContain(`<img src="data:,">`);
    expect(out).toContain(`<img src="https://t.example/p.gif">`);
    expect(out).not.toContain("attachment:");
  });
  it("makes the files' links absolute, skipping those without one", () => {
    const resolve = (link: string | null | undefined) => (link ? `https://api.example.com${link}` : null);
    expect(attachmentLinks([{ id: "a", url: "/files/a" }, { id: "b", url: null }], resolve)).toEqual({ a: "https://api.example.com/files/a" });
  });
  it("tells remote images apart from the message's own", () => {
    expect(hasRemoteImages(`<img src="attachment:a1">`)).toBe(false);
    expect(hasRemoteImages(`<img alt="" src="http://t.example/p.gif">`)).toBe(true);
    expect(hasRemoteImages(`<img src="//t.example/p.gif">`)).toBe(true);
    expect(hasRemoteImages(`<td background="https://t.example/bg.png">`)).toBe(true);
    expect(hasRemoteImages(`<a href="https://example.org">link</a>`)).toBe(false);
  });
});

describe("the email's document", () => {
  it("blocks everything but inline styles and the API's images, unless remote images are allowed", () => {
    expect(emailCsp("https://api.example.com")).toBe("default-src 'none'; img-src data: https://api.example.com; style-src 'unsafe-inline'");
    expect(emailCsp("https://api.example.com", true)).toBe("default-src 'none'; img-src data: https://api.example.com https: http:; style-src 'unsafe-inline'");
  });
  it("puts the policy before the email's HTML", () => {
    const doc = emailSrcdoc(`<p>Hi</p><img src="attachment:a1">`, { apiOrigin: "https://api.example.com", links: { a1: "https://api.example.com/files/a1" } });
    const policy = doc.indexOf(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data: https://api.example.com; style-src 'unsafe-inline'">`);
    expect(policy).toBeGreaterThan(0);
    expect(policy).toBeLessThan(doc.indexOf("<p>Hi</p>"));
    expect(doc).toContain(`<img src="https://api.example.com/files/a1">`);
    expect(emailSrcdoc("<p>Hi</p>", { apiOrigin: "https://api.example.com", links: {}, remoteImages: true })).toContain("img-src data: https://api.example.com https: http:;");
  });
});

describe("estimateFrameHeight", () => {
  it("grows with the text, blocks and images, within bounds", () => {
    expect(estimateFrameHeight("<p>Hi</p>")).toBe(FRAME_MIN_PX);
    const short = estimateFrameHeight("<p>" + "word ".repeat(60) + "</p><p>Thanks</p>");
    expect(short).toBeGreaterThan(FRAME_MIN_PX);
    expect(estimateFrameHeight("<p>" + "word ".repeat(60) + "</p><p>Thanks</p><img src=x>")).toBeGreaterThan(short);
    expect(estimateFrameHeight("<p>x</p>".repeat(500))).toBe(FRAME_MAX_PX);
  });
});

describe("mailboxStatusLabel", () => {
  it("says how watching the mailbox goes, with the server's words on failure", () => {
    expect(mailboxStatusLabel("connected", null)).toMatch(/^Connected/);
    expect(mailboxStatusLabel("connecting", null)).toMatch(/^Connecting/);
    expect(mailboxStatusLabel("failing", "the server refused the login: [AUTHENTICATIONFAILED]")).toBe(
      "Cannot read the mailbox: the server refused the login: [AUTHENTICATIONFAILED]. Trying again.",
    );
  });
});

describe("the SMTP server", () => {
  it("says how the last email through it went, with the server's words on failure", () => {
    expect(smtpStatusLabel("untested", null)).toMatch(/^Untested: /);
    expect(smtpStatusLabel("testing", null)).toMatch(/^Testing: /);
    expect(smtpStatusLabel("working", "stale")).toBe("Working: the last email through it was accepted.");
    expect(smtpStatusLabel("failing", "SMTP: 535 5.7.8 Authentication failed")).toBe("Failing: SMTP: 535 5.7.8 Authentication failed.");
    expect(smtpStatusLabel("failing", " ")).toBe("Failing: the server refused the email.");
  });
  it("says where the test email goes and what it leaves through", () => {
    expect(testEmailLabel({ to: "owner@acme.test", via: "workspace" })).toBe(
      "Test email queued for owner@acme.test, through your SMTP server: its status below says how it went.",
    );
    expect(testEmailLabel({ to: "owner@acme.test", via: "platform" })).toBe("Test email queued for owner@acme.test, through Support Desk's mail server.");
  });
});

describe("smtpRequest", () => {
  it("sends the server, leaving out an empty user (no login) and an empty password (kept)", () => {
    expect(smtpRequest({ host: " smtp.acme.test ", port: 587, tls: true, user: "mailer@acme.test", password: " secret with spaces " })).toEqual({
      smtp: { host: "smtp.acme.test", port: 587, tls: true, user: "mailer@acme.test", password: " secret with spaces " },
    });
    expect(smtpRequest({ host: "smtp.acme.test", port: 465, tls: true, user: "mailer@acme.test", password: null })).toEqual({
      smtp: { host: "smtp.acme.test", port: 465, tls: true, user: "mailer@acme.test" },
    });
    expect(smtpRequest({ host: "10.0.0.5", port: 25, tls: false, user: " ", password: null })).toEqual({ smtp: { host: "10.0.0.5", port: 25, tls: false } });
  });
  it("is null to stop using the server", () => {
    expect(smtpRequest(null)).toEqual({ smtp: null });
  });
});
