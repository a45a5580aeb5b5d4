// The audit log as Owners read it (Settings -> Audit log). Pure: what each action is called,
// how an entry's target and `changes` read ("role: Agent → Owner", "SMTP password changed"),
// the query its filters make, and how old an entry is. The API records `changes` as
// `{"field": {"from", "to"}}` for what changed and as plain facts naming the target (an email,
// a name, a URL), and never a secret: a new password is `"changed"`.

import type { components } from "@/api/schema";
import { roleLabel, type Role } from "@/api/types";
import { dayEnd, dayStart, isDay } from "./localDay";

type Schemas = components["schemas"];

export type AuditEntry = Schemas["AuditEntry"];
export type AuditPage = Schemas["AuditPage"];

/** Every action the log records, in the API's order (`Action::ALL`). */
export const AUDIT_ACTIONS = [
  "member.signed_in",
  "member.invited",
  "invitation.revoked",
  "member.joined",
  "member.role_changed",
  "member.deactivated",
  "member.reactivated",
  "api_key.created",
  "api_key.regenerated",
  "api_key.revoked",
  "widget.settings_changed",
  "widget.site_key_regenerated",
  "widget.identity_secret_regenerated",
  "webhook.created",
  "webhook.changed",
  "webhook.secret_rotated",
  "webhook.deleted",
  "settings.changed",
  "email_settings.changed",
  "workspace.deletion_requested",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const ACTION_LABELS: Readonly<Record<AuditAction, string>> = {
  "member.signed_in": "Signed in",
  "member.invited": "Member invited",
  "invitation.revoked": "Invitation revoked",
  "member.joined": "Member joined",
  "member.role_changed": "Role changed",
  "member.deactivated": "Member deactivated",
  "member.reactivated": "Member reactivated",
  "api_key.created": "API key created",
  "api_key.regenerated": "API key regenerated",
  "api_key.revoked": "API key revoked",
  "widget.settings_changed": "Chat widget settings changed",
  "widget.site_key_regenerated": "Widget site key regenerated",
  "widget.identity_secret_regenerated": "Widget identity secret regenerated",
  "webhook.created": "Webhook created",
  "webhook.changed": "Webhook changed",
  "webhook.secret_rotated": "Webhook secret rotated",
  "webhook.deleted": "Webhook deleted",
  "settings.changed": "Workspace settings changed",
  "email_settings.changed": "Email settings changed",
  "workspace.deletion_requested": "Workspace deletion requested",
};

function isAction(action: string): action is AuditAction {
  return Object.hasOwn(ACTION_LABELS, action);
}

/** "member.role_changed" -> "Role changed"; an action this dashboard does not know yet reads as the API wrote it. */
export function actionLabel(action: string): string {
  return isAction(action) ? ACTION_LABELS[action] : action;
}

/** Who acted, as a badge beside their name: an API key or an operator's command (members have none). */
export function actorBadge(kind: string): string | null {
  if (kind === "apiKey") return "API key";
  if (kind === "operator") return "Operator";
  return null;
}

/**
 * The JSON page of `GET /api/audit-log`. The operation answers JSON or (asked for) CSV, so the
 * typed client's answer may be either; a list call that got text was answered by something
 * other than the API.
 */
export function auditPage(data: AuditPage | string): AuditPage {
  if (typeof data === "string" || !Array.isArray(data?.entries)) {
    throw new Error("The audit log could not be read: the answer was not a page of entries.");
  }
  return data;
}

// ---- filters and the query ----------------------------------------------------------------

/** The filters as the form holds them: "" is "any"; dates are a date input's `YYYY-MM-DD`. */
export interface AuditFilters {
  action: string;
  /** A user's id (the members' select). */
  actor: string;
  from: string;
  to: string;
}

export const NO_FILTERS: Readonly<AuditFilters> = { action: "", actor: "", from: "", to: "" };

/** `GET /api/audit-log`'s filter parameters (no paging). */
export interface AuditQuery {
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
}

/** Said beside "To" when the range runs backwards (its query would match nothing). */
export function dateRangeError(filters: AuditFilters): string | null {
  if (isDay(filters.from) && isDay(filters.to) && filters.to < filters.from) {
    return "The end date is before the start date.";
  }
  return null;
}

/**
 * The API's parameters for `filters`: only those set. Days are the viewer's own: `from` is its
 * start (inclusive) and `to` the end of its day (the API's `to` is exclusive, so the next
 * day's start), so "To 12 March" includes the 12th.
 */
export function auditQuery(filters: AuditFilters): AuditQuery {
  const query: AuditQuery = {};
  if (filters.actor) query.actor = filters.actor;
  if (filters.action) query.action = filters.action;
  const from = filters.from ? dayStart(filters.from) : null;
  const to = filters.to ? dayEnd(filters.to) : null;
  if (from) query.from = from;
  if (to) query.to = to;
  return query;
}

/**
 * The query string of `GET /api/audit-log` for `filters` (and a page's `cursor`), in a fixed
 * order: filters that ask the same thing give the same string (the page's cache key).
 */
export function auditQueryString(filters: AuditFilters, cursor?: string | null): string {
  const query = auditQuery(filters);
  const params = new URLSearchParams();
  for (const name of ["actor", "action", "from", "to"] as const) {
    const value = query[name];
    if (value) params.set(name, value);
  }
  if (cursor) params.set("cursor", cursor);
  return params.toString();
}

/** Whether any filter is set (the "Clear filters" button shows then). */
export function hasFilters(filters: AuditFilters): boolean {
  return Boolean(filters.action || filters.actor || filters.from || filters.to);
}

/** What the list holds, announced as it changes: "12 entries.", "1 entry matches.", "No entries match these filters.". */
export function auditCountText(count: number, more: boolean, filtered: boolean): string {
  if (count === 0) return filtered ? "No entries match these filters." : "No entries yet.";
  const shown = filtered ? `${count} ${count === 1 ? "entry matches" : "entries match"}` : `${count} ${count === 1 ? "entry" : "entries"}`;
  return more ? `${shown} so far; older ones can be loaded.` : `${shown}.`;
}

// ---- what an entry says -------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{from, to}` and nothing else: a field that changed. */
function isChange(value: unknown): value is { from: Json; to: Json } {
  return isObject(value) && "from" in value && "to" in value && Object.keys(value).length === 2;
}

const ACRONYMS: Readonly<Record<string, string>> = { smtp: "SMTP", imap: "IMAP", tls: "TLS", url: "URL", ip: "IP", api: "API", id: "ID" };

/** "smtp.password" -> "SMTP password", "allowedOrigins" -> "allowed origins", "branding.color" -> "branding color". */
export function fieldLabel(field: string): string {
  return field
    .split(".")
    .flatMap((part) => part.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[\s_]+/))
    .filter(Boolean)
    .map((word) => ACRONYMS[word.toLowerCase()] ?? word.toLowerCase())
    .join(" ");
}

const ROLES: readonly string[] = ["admin", "agent"] satisfies Role[];

/** A value as people read it: nothing is "none", switches are "on"/"off", roles are "Owner"/"Agent", lists are joined. */
export function valueText(value: unknown, field = ""): string {
  if (value === null || value === undefined || value === "") return "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    const last = field.split(".").pop() ?? "";
    if (last === "role" && ROLES.includes(value)) return roleLabel(value as Role);
    if (last === "eventTypes" && value === "*") return "all events";
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    return value.map((item) => valueText(item, field)).join(", ");
  }
  return JSON.stringify(value);
}

/** Every leaf of `value` by its dotted path (`{smtp: {host}}` -> `smtp.host`); a non-object is its own leaf. */
function leaves(value: Json | undefined, prefix: string, into: Map<string, Json | undefined>): Map<string, Json | undefined> {
  if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, `${prefix}.${key}`, into);
  } else {
    into.set(prefix, value);
  }
  return into;
}

/**
 * One line per field that changed. A field holding an object (branding, a mail server) is
 * compared leaf by leaf, so "branding color: #112233 → #445566" says what moved rather than two
 * whole objects; a server set for the first time lists what it was set to.
 */
function changeLines(field: string, from: Json, to: Json): string[] {
  if (!isObject(from) && !isObject(to)) return [`${fieldLabel(field)}: ${valueText(from, field)} → ${valueText(to, field)}`];
  if (to === null) return [`${fieldLabel(field)}: removed`];
  if (!isObject(to)) return [`${fieldLabel(field)}: ${valueText(to, field)}`];
  const before = isObject(from) ? leaves(from, field, new Map()) : new Map<string, Json | undefined>();
  const after = leaves(to, field, new Map());
  const lines: string[] = [];
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(path);
    const b = after.get(path);
    if (JSON.stringify(a) !== JSON.stringify(b)) lines.push(`${fieldLabel(path)}: ${valueText(a, path)} → ${valueText(b, path)}`);
  }
  return lines;
}

const TARGET_LABELS: Readonly<Record<string, string>> = {
  member: "Member",
  invitation: "Invitation",
  api_key: "API key",
  widget: "Chat widget",
  webhook: "Webhook",
  settings: "Workspace settings",
  email_settings: "Email settings",
  workspace: "Workspace",
};

/** The facts an entry names its target with: under `target` (a member's), else at the top. */
function facts(changes: JsonObject): JsonObject {
  return isObject(changes.target) ? changes.target : changes;
}

function fact(changes: JsonObject, key: string): string | null {
  const value = facts(changes)[key];
  return typeof value === "string" && value ? value : null;
}

/** Which facts the target's text uses, so that the changes do not say them again. */
function targetFacts(type: string): string[] {
  switch (type) {
    case "member":
      return ["name", "email"];
    case "invitation":
      return ["email"];
    case "api_key":
      return ["name"];
    case "webhook":
      return ["url"];
    default:
      return [];
  }
}

export interface DescribedEntry {
  /** "Member Maya Patel (maya@example.com)", "API key CRM", "Chat widget". */
  target: string;
  /** "role: Agent → Owner", "SMTP password changed", "prefix: sd_1a2b"; empty when nothing is recorded. */
  changes: string[];
}

/** How an entry's target and changes read in the table. */
export function describeEntry(entry: Pick<AuditEntry, "target" | "changes">): DescribedEntry {
  const changes: JsonObject = isObject(entry.changes) ? (entry.changes as JsonObject) : {};
  const type = entry.target.type;
  const label = TARGET_LABELS[type] ?? fieldLabel(type);
  const name = fact(changes, "name");
  const email = fact(changes, "email");
  const url = fact(changes, "url");
  let target: string;
  switch (type) {
    case "member":
      target = name && email ? `${label} ${name} (${email})` : `${label} ${name ?? email ?? entry.target.id ?? ""}`;
      break;
    case "invitation":
      target = `${label} for ${email ?? entry.target.id ?? "someone"}`;
      break;
    case "api_key":
      target = name ? `${label} ${name}` : `${label} ${entry.target.id ?? ""}`;
      break;
    case "webhook":
      target = url ? `${label} ${url}` : `${label} ${entry.target.id ?? ""}`;
      break;
    default:
      target = label;
  }
  // The facts the target says (at the top, or under `target`) are not said again.
  const said = new Set(targetFacts(type));
  const lines: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (field === "target" && isObject(value)) {
      for (const [key, inner] of Object.entries(value)) {
        if (!said.has(key)) lines.push(`${fieldLabel(key)}: ${valueText(inner, key)}`);
      }
    } else if (isChange(value)) {
      lines.push(...changeLines(field, value.from, value.to));
    } else if (value === "changed") {
      lines.push(`${fieldLabel(field)} changed`);
    } else if (!said.has(field) || isObject(changes.target)) {
      lines.push(`${fieldLabel(field)}: ${valueText(value, field)}`);
    }
  }
  return { target: target.trim(), changes: lines };
}

// ---- time -----------------------------------------------------------------------------------

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 minutes ago", "3 hours ago", "yesterday", "4 days ago"; the date beyond a week. */
export function auditAge(iso: string, now: number, locale?: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const age = Math.max(0, now - at);
  if (age < MINUTE) return "just now";
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  if (age < HOUR) return relative.format(-Math.floor(age / MINUTE), "minute");
  if (age < DAY) return relative.format(-Math.floor(age / HOUR), "hour");
  if (age < 7 * DAY) return relative.format(-Math.floor(age / DAY), "day");
  return new Date(at).toLocaleDateString(locale, { day: "numeric", month: "short", year: "numeric" });
}

/** The exact time, to the second and with its time zone, for a `title`. */
export function exactTime(iso: string, locale?: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  return new Date(at).toLocaleString(locale, { dateStyle: "full", timeStyle: "long" });
}

// ---- the CSV file -----------------------------------------------------------------------------

export const CSV_FILE_NAME = "audit-log.csv";

/**
 * The file name a `Content-Disposition` header gives (`attachment; filename="audit-log.csv"`),
 * reduced to a safe base name; "audit-log.csv" without one (the API does not expose the header
 * across origins).
 */
export function csvFileName(contentDisposition: string | null | undefined): string {
  const match = /filename="?([^";]+)"?/i.exec(contentDisposition ?? "");
  const name = match?.[1]?.split(/[\\/]/).pop()?.trim();
  return name && /\.csv$/i.test(name) ? name : CSV_FILE_NAME;
}
