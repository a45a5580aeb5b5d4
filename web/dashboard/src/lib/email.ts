// The email channel as the thread and Settings show it. Pure: how parties, channels, delivery
// and the mail servers' status read (who a reply goes to is lib/recipients); and the document
// an email's HTML is shown in. The HTML (sanitised by the API) is only ever shown inside a
// sandboxed iframe (no scripts, an opaque origin) through `srcdoc`, under a
// Content-Security-Policy of its own that loads nothing but the message's own images (the
// API's file links, which `attachment:<id>` sources are replaced with) until the agent asks for
// the remote ones.

import type { components } from "@/api/schema";
import type { Attachment, Conversation, Message } from "@/api/types";

type Schemas = components["schemas"];

export type EmailDetails = Schemas["EmailDetails"];
export type EmailParty = Schemas["EmailParty"];
export type Delivery = Schemas["Delivery"];
export type Channel = Conversation["channel"];
export type SmtpStatus = Schemas["SmtpStatus"];
export type SmtpInput = Schemas["SmtpInput"];

const CHANNEL_LABELS: Readonly<Record<Channel, string>> = { chat: "Chat", manual: "Manual", email: "Email" };

/** "Chat", "Manual", "Email". */
export function channelLabel(channel: Channel): string {
  return CHANNEL_LABELS[channel] ?? channel;
}

/** "Carla Diaz <carla@example.org>", or the bare address when there is no name. */
export function partyLabel(party: EmailParty): string {
  const name = party.name?.trim();
  return name && name !== party.address ? `${name} <${party.address}>` : party.address;
}

/** Parties separated by commas; empty for none. */
export function partiesLabel(parties: readonly EmailParty[]): string {
  return parties.map(partyLabel).join(", ");
}

/** How watching an IMAP mailbox goes, in words. */
export function mailboxStatusLabel(status: "connecting" | "connected" | "failing", lastError: string | null): string {
  switch (status) {
    case "connecting":
      return "Connecting to the mailbox…";
    case "connected":
      return "Connected: new mail is taken as it arrives.";
    case "failing":
      return `Cannot read the mailbox: ${lastError ?? "unknown error"}. Trying again.`;
  }
}

export const DMARC_WARNING = "The sender's address could not be verified (DMARC failed): it may be forged.";

/** How an outgoing email's delivery reads: "Sending…", "Sent by email", "Not delivered: <why>". */
export function deliveryLabel(delivery: Delivery): string {
  switch (delivery.status) {
    case "pending":
      return "Sending…";
    case "sent":
      return "Sent by email";
    default: {
      const error = delivery.error?.trim();
      return `Not delivered: ${error || "the mail server refused it"}`;
    }
  }
}

/** Whether any of these messages is an email reply still waiting for the worker. */
export function hasPendingDelivery(messages: readonly Message[]): boolean {
  return messages.some((m) => m.email?.delivery?.status === "pending");
}

/** How the workspace's own SMTP server did with the last email through it, in words. */
export function smtpStatusLabel(status: SmtpStatus, lastError: string | null): string {
  switch (status) {
    case "untested":
      return "Untested: nothing has been sent through it since it was saved.";
    case "testing":
      return "Testing: sending the test email…";
    case "working":
      return "Working: the last email through it was accepted.";
    case "failing": {
      const error = lastError?.trim();
      return `Failing: ${error || "the server refused the email"}.`;
    }
  }
}

/** What the test email's answer means: where it goes, and what it leaves through. */
export function testEmailLabel(test: { to: string; via: string }): string {
  return test.via === "workspace"
    ? `Test email queued for ${test.to}, through your SMTP server: its status below says how it went.`
    : `Test email queued for ${test.to}, through Support Desk's mail server.`;
}

const ATTACHMENT_SRC = /(\bsrc\s*=\s*)(?:"attachment:([^"]*)"|'attachment:([^']*)'|attachment:([^\s"'>`]+))/gi;

/** The ids an email's HTML shows inline (`src="attachment:<id>"`). */
export function inlineAttachmentIds(html: string): Set<string> {
  const ids = new Set<string>();
  for (const match of html.matchAll(ATTACHMENT_SRC)) {
    const id = (match[2] ?? match[3] ?? match[4] ?? "").trim();
    if (id) ids.add(id);
  }
  return ids;
}

/** Text made safe inside a double-quoted attribute. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The HTML with every `src="attachment:<id>"` pointing at that file's link (`links`: id to an
 * absolute URL). A file without a link yet, or not on the message, shows nothing (an empty
 * `data:` source) rather than a broken request.
 */
export function resolveInlineImages(html: string, links: Readonly<Record<string, string>>): string {
  return html.replace(ATTACHMENT_SRC, (_all, prefix: string, dq?: string, sq?: string, bare?: string) => {
    const id = (dq ?? sq ?? bare ?? "").trim();
    const link = Object.prototype.hasOwnProperty.call(links, id) ? links[id] : undefined;
    return `${prefix}"${escapeAttribute(link ?? "data:,")}"`;
  });
}

/** Links of the message's files that have one, by id, made absolute with `resolve`. */
export function attachmentLinks(attachments: readonly Pick<Attachment, "id" | "url">[], resolve: (link: string | null | undefined) => string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const a of attachments) {
    const url = resolve(a.url);
    if (url) links[a.id] = url;
  }
  return links;
}

/** Whether the HTML asks for images from elsewhere (http or https), which stay blocked until allowed. */
export function hasRemoteImages(html: string): boolean {
  return /<img\b[^>]*\bsrcset\s*=|<img\b[^>]*\bsrc\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html) || /\bbackground\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html);
}

/**
 * The policy an email's document runs under: nothing loads but inline styles and images from
 * `data:` and the API (the message's own files); `remoteImages` also allows images from any
 * http(s) address, for this one message.
 */
export function emailCsp(apiOrigin: string, remoteImages = false): string {
  return `default-src 'none'; img-src data: ${apiOrigin}${remoteImages ? " https: http:" : ""}; style-src 'unsafe-inline'`;
}

const FRAME_STYLE =
  "html{color-scheme:light}body{margin:0;padding:8px;font:14px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1a1a1a;background:#fff;overflow-wrap:anywhere}img{max-width:100%;height:auto}table{max-width:100%}pre{white-space:pre-wrap}";

/**
 * The iframe's `srcdoc`: the policy first (a `<meta>` before anything the email brings, which
 * can only add restrictions), then the email's HTML with its inline images resolved.
 */
export function emailSrcdoc(html: string, options: { apiOrigin: string; links: Readonly<Record<string, string>>; remoteImages?: boolean }): string {
  const csp = escapeAttribute(emailCsp(options.apiOrigin, options.remoteImages ?? false));
  return (
    `<!doctype html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<meta name="referrer" content="no-referrer">` +
    `<style>${FRAME_STYLE}</style></head><body>${resolveInlineImages(html, options.links)}</body></html>`
  );
}

/** The frame's starting height bounds (px); the agent can resize it. */
export const FRAME_MIN_PX = 96;
export const FRAME_MAX_PX = 480;

/**
 * A first guess at the height (px) the email's HTML needs, from its text and blocks: the
 * sandboxed frame cannot be measured from outside (an opaque origin, no scripts).
 */
export function estimateFrameHeight(html: string): number {
  const text = html.replace(/<[^>]*>/g, " ").replace(/&[a-z#0-9]+;/gi, "x").replace(/\s+/g, " ").trim();
  const blocks = (html.match(/<(?:p|div|br|li|tr|h[1-6]|blockquote|pre|table)\b/gi) ?? []).length;
  const images = (html.match(/<img\b/gi) ?? []).length;
  const lines = Math.ceil(text.length / 90) + blocks;
  const height = 16 + lines * 21 + images * 100;
  return Math.min(FRAME_MAX_PX, Math.max(FRAME_MIN_PX, height));
}

/** The SMTP form as the Owner filled it; `user` and `password` null when left empty. */
export interface SmtpForm {
  host: string;
  port: number;
  tls: boolean;
  user: string | null;
  password: string | null;
}

/**
 * `smtp` of `PUT /api/settings/email`: the server (no `user`: no login; no `password`: the
 * stored one is kept for the same user), or null to stop using it.
 */
export function smtpRequest(form: SmtpForm | null): { smtp: SmtpInput | null } {
  if (form === null) return { smtp: null };
  const { host, port, tls, user, password } = form;
  return { smtp: { host: host.trim(), port, tls, ...(user?.trim() ? { user: user.trim() } : {}), ...(password ? { password } : {}) } };
}
