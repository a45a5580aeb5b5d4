// The loader (on the customer's page) and the chat page (in the iframe, on the widget's own
// origin) talk only through postMessage. Any page can post anything to any window, so every
// message is tagged, checked for shape, and accepted only from the expected window AND origin.
// This module is bundled into the loader too: keep it small and dependency-free.

export interface Branding {
  name: string | null;
  /** "#rrggbb" */
  color: string | null;
  logoUrl: string | null;
  widgetGreeting: string | null;
}

/** The body of `201 POST /widget/v1/sessions`. */
export interface WidgetSession {
  token: string;
  visitorId: string;
  expiresAt: string;
  workspace: { name: string; branding: Branding };
  agentsOnline: boolean;
}

/**
 * `SupportDesk.identify(...)`: `hash` is hex HMAC-SHA256(identity secret, externalId), computed
 * by the customer's server. The API requires it when identity verification is on.
 */
export interface Identity {
  externalId: string;
  email?: string;
  name?: string;
  hash?: string;
}

/** The customer's page the chat sits on, as the loader sees it (the iframe cannot read it). */
export interface HostPage {
  url: string;
  title: string;
  /** "" when the page was opened directly. */
  referrer: string;
}

/** iframe -> loader */
export type FromWidget =
  /** The chat page listens; the loader answers with `hello`. */
  | { type: "ready" }
  /**
   * The visitor id the widget's own storage holds for this site (null: a first visit).
   * `stored: false`: the browser denies the iframe its storage (third-party storage blocked,
   * e.g. incognito), so the loader keeps the id in the page's storage instead.
   */
  | { type: "visitor"; visitorId: string | null; stored: boolean }
  /** The token expires soon (or was refused): create a session for the same visitor. */
  | { type: "renew" }
  /** The visitor minimised the chat from inside. */
  | { type: "close" }
  /** Agent messages that arrived while the chat was closed (0 once opened): the launcher's badge. */
  | { type: "unread"; count: number };

/** `new`: another visitor or identity (start over); `renew`: same visitor, fresh token. */
export type SessionReason = "new" | "renew";

/** loader -> iframe */
export type FromLoader =
  /** `page` is null only from a loader older than the page field. */
  | { type: "hello"; siteKey: string; page: HostPage | null }
  /** The host page's URL changed (a single-page site navigated). */
  | { type: "page"; page: HostPage }
  | { type: "session"; reason: SessionReason; session: WidgetSession }
  | { type: "session-error"; reason: SessionReason; status: number; detail: string; retryAfter: number | null }
  /** The chat was opened: focus the message box. */
  | { type: "open" }
  /** The chat was closed (hidden, still connected). */
  | { type: "closed" };

export const TAG = "supportdesk";

/** Adds the tag that marks our messages among whatever else a page posts. */
export function envelope<T extends FromWidget | FromLoader>(message: T): T & { [TAG]: 1 } {
  return { ...message, [TAG]: 1 };
}

/** The check both sides make before reading a message. */
export function fromExpected(
  event: { source: unknown; origin: string },
  source: unknown,
  origin: string | null,
): boolean {
  return source != null && event.source === source && origin != null && event.origin === origin;
}

type Loose = Record<string, unknown>;

function tagged(data: unknown): Loose | null {
  return typeof data === "object" && data !== null && (data as Loose)[TAG] === 1 ? (data as Loose) : null;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === "string";

export function parseFromWidget(data: unknown): FromWidget | null {
  const m = tagged(data);
  switch (m?.type) {
    case "ready":
    case "renew":
    case "close":
      return { type: m.type };
    case "unread":
      return typeof m.count === "number" && Number.isInteger(m.count) && m.count >= 0
        ? { type: "unread", count: m.count }
        : null;
    case "visitor":
      return isNullableString(m.visitorId) && typeof m.stored === "boolean"
        ? { type: "visitor", visitorId: m.visitorId || null, stored: m.stored }
        : null;
    default:
      return null;
  }
}

export function isSession(v: unknown): v is WidgetSession {
  const s = v as WidgetSession | null;
  const b = s?.workspace?.branding as Branding | undefined;
  return (
    typeof s === "object" &&
    s !== null &&
    isString(s.token) &&
    s.token.length > 0 &&
    isString(s.visitorId) &&
    isString(s.expiresAt) &&
    typeof s.agentsOnline === "boolean" &&
    isString(s.workspace?.name) &&
    typeof b === "object" &&
    b !== null &&
    isNullableString(b.name) &&
    isNullableString(b.color) &&
    isNullableString(b.logoUrl) &&
    isNullableString(b.widgetGreeting)
  );
}

export function isHostPage(v: unknown): v is HostPage {
  const p = v as HostPage | null;
  return typeof p === "object" && p !== null && isString(p.url) && isString(p.title) && isString(p.referrer);
}

const isReason = (v: unknown): v is SessionReason => v === "new" || v === "renew";

export function parseFromLoader(data: unknown): FromLoader | null {
  const m = tagged(data);
  switch (m?.type) {
    case "open":
    case "closed":
      return { type: m.type };
    case "hello":
      if (!isString(m.siteKey) || !m.siteKey) return null;
      if (m.page !== undefined && !isHostPage(m.page)) return null;
      return { type: "hello", siteKey: m.siteKey, page: m.page ?? null };
    case "page":
      return isHostPage(m.page) ? { type: "page", page: m.page } : null;
    case "session":
      return isReason(m.reason) && isSession(m.session) ? { type: "session", reason: m.reason, session: m.session } : null;
    case "session-error":
      return isReason(m.reason) && typeof m.status === "number" && isString(m.detail)
        ? {
            type: "session-error",
            reason: m.reason,
            status: m.status,
            detail: m.detail,
            retryAfter: typeof m.retryAfter === "number" ? m.retryAfter : null,
          }
        : null;
    default:
      return null;
  }
}

/** What `identify()` accepts; anything else is refused with a console error, not sent. */
export function parseIdentity(v: unknown): Identity | null {
  const i = v as Partial<Identity> | null;
  if (typeof i !== "object" || i === null || !isString(i.externalId) || !i.externalId) return null;
  if (i.hash !== undefined && !isString(i.hash)) return null;
  const identity: Identity = { externalId: i.externalId };
  if (i.hash) identity.hash = i.hash;
  if (isString(i.email) && i.email) identity.email = i.email;
  if (isString(i.name) && i.name) identity.name = i.name;
  return identity;
}

/** Same person, same proof: identify() with it again changes nothing. */
export function sameIdentity(a: Identity | null, b: Identity): boolean {
  return !!a && a.externalId === b.externalId && a.email === b.email && a.name === b.name && a.hash === b.hash;
}
