// Webhooks as Settings shows them. Pure: the event types an endpoint may receive and how a
// selection of checkboxes becomes the API's `eventTypes` (and back), how an endpoint's state
// and its delivery log read, and the delivery log's page as the API sends it.
//
// The delivery log's rows are typed here by hand (docs/api.md, "Webhooks"): the API's OpenAPI
// document has one schema named `Delivery`, the email channel's (`{status: "pending" | "sent" |
// "failed", error}`), and `DeliveryPage` refers to it, so the generated types describe another
// record. `parseDeliveryPage` reads the page as it really is.

import type { Webhook } from "@/api/types";

/** `eventTypes: ["*"]`: every type, including types added later. */
export const ALL_EVENTS = "*";

/** The event log's catalogue (`DomainEvent::TYPES`), in its order, with what each means. */
export const EVENT_TYPES = [
  { type: "conversation.created", description: "A conversation starts." },
  { type: "conversation.updated", description: "A conversation's status, assignee or priority changes." },
  { type: "message.created", description: "A message, a reply or a private note is added to a conversation." },
  { type: "contact.created", description: "A contact is added." },
  { type: "contact.updated", description: "A contact's details change." },
  { type: "ticket.created", description: "A ticket is created." },
  { type: "ticket.updated", description: "A ticket changes." },
  { type: "ticket_comment.created", description: "A ticket gets a comment." },
  { type: "agent.updated", description: "An agent joins, changes role or profile, or is deactivated or reactivated." },
  { type: "conversation.rated", description: "A customer rates the resolution of their conversation, 1 to 5." },
] as const;

export type EventType = (typeof EVENT_TYPES)[number]["type"];

const CATALOGUE: readonly string[] = EVENT_TYPES.map((e) => e.type);

function isEventType(type: string): type is EventType {
  return CATALOGUE.includes(type);
}

/** What the event-type checkboxes say: every event, or these types. */
export interface TypeSelection {
  all: boolean;
  types: ReadonlySet<EventType>;
}

/** The checkboxes for an endpoint's `eventTypes` (types outside the catalogue are left out). */
export function selectionFromTypes(eventTypes: readonly string[]): TypeSelection {
  if (eventTypes.includes(ALL_EVENTS)) return { all: true, types: new Set() };
  return { all: false, types: new Set(eventTypes.filter(isEventType)) };
}

/** The API's `eventTypes` for the checkboxes: `["*"]`, or the types in the catalogue's order ([] for none). */
export function typesFromSelection(selection: TypeSelection): string[] {
  if (selection.all) return [ALL_EVENTS];
  return CATALOGUE.filter((type) => selection.types.has(type as EventType));
}

/** The selection with one type's checkbox (or "All events", for `*`) set to `checked`. */
export function toggleType(selection: TypeSelection, type: EventType | typeof ALL_EVENTS, checked: boolean): TypeSelection {
  if (type === ALL_EVENTS) return { all: checked, types: selection.types };
  const types = new Set(selection.types);
  if (checked) types.add(type);
  else types.delete(type);
  return { all: selection.all, types };
}

/** "All events", or the types separated by commas. */
export function eventTypesLabel(eventTypes: readonly string[]): string {
  if (eventTypes.includes(ALL_EVENTS)) return "All events";
  if (eventTypes.length === 0) return "No events";
  return eventTypes.join(", ");
}

export type StateTone = Webhook["state"];

/**
 * How delivery to an endpoint goes, in words: "Healthy", "Failing since <time> — <last
 * error>", "Disabled — <why the product turned it off>", or "Disabled" when an Owner did.
 * `formatTime` turns the API's ISO time into a person's.
 */
export function webhookStateText(
  webhook: Pick<Webhook, "state" | "failingSince" | "lastError" | "disabledReason">,
  formatTime: (iso: string) => string,
): string {
  switch (webhook.state) {
    case "healthy":
      return "Healthy";
    case "failing": {
      const since = webhook.failingSince ? formatTime(webhook.failingSince) : "";
      const error = webhook.lastError?.trim();
      const head = since ? `Failing since ${since}` : "Failing";
      return error ? `${head} — ${error}` : head;
    }
    case "disabled": {
      const reason = webhook.disabledReason?.trim();
      return reason ? `Disabled — ${reason}` : "Disabled";
    }
  }
}

/** The endpoint as one line for a button's or a dialog's name: its description, else its URL. */
export function webhookName(webhook: Pick<Webhook, "url" | "description">): string {
  return webhook.description.trim() || webhook.url;
}

// ---- the delivery log ---------------------------------------------------------------------

export type DeliveryStatus = "succeeded" | "failed" | "pending";

/** One attempt to deliver one event (or a request not attempted yet: `pending`). */
export interface WebhookDelivery {
  id: string;
  /** `webhook-id` of the request, the same on every attempt of the event. */
  eventId: string;
  eventType: string;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  latencyMs: number | null;
  /** The first 2 KiB of the receiver's answer. */
  responseBody: string | null;
  error: string | null;
  createdAt: string;
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

const STATUSES: readonly DeliveryStatus[] = ["succeeded", "failed", "pending"];

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
}
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const integer = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** The delivery log's page as the API sends it; rows without an id are left out. */
export function parseDeliveryPage(body: unknown): WebhookDeliveryPage {
  const page = record(body);
  const rows = Array.isArray(page.deliveries) ? page.deliveries : [];
  const deliveries = rows.flatMap((row): WebhookDelivery[] => {
    const r = record(row);
    const id = text(r.id);
    if (!id) return [];
    const status = STATUSES.find((s) => s === r.status) ?? "failed";
    return [
      {
        id,
        eventId: text(r.eventId) ?? "",
        eventType: text(r.eventType) ?? "",
        attempt: integer(r.attempt) ?? 1,
        status,
        responseStatus: integer(r.responseStatus),
        latencyMs: integer(r.latencyMs),
        responseBody: text(r.responseBody),
        error: text(r.error),
        createdAt: text(r.createdAt) ?? "",
      },
    ];
  });
  return { deliveries, nextCursor: text(page.nextCursor) };
}

const STATUS_LABELS: Readonly<Record<DeliveryStatus, string>> = { succeeded: "Succeeded", failed: "Failed", pending: "Pending" };

/** "Succeeded", "Failed", "Pending". */
export function deliveryStatusLabel(status: DeliveryStatus): string {
  return STATUS_LABELS[status];
}

/** "120 ms", "1.5 s"; "—" when not measured. */
export function latencyLabel(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The receiver's HTTP status, or "—" when it did not answer (or was not asked yet). */
export function httpStatusLabel(status: number | null): string {
  return status === null ? "—" : String(status);
}

/** Whether a row of the log waits for the worker: the log is read again until none does. */
export function hasPendingDelivery(pages: readonly WebhookDeliveryPage[]): boolean {
  return pages.some((page) => page.deliveries.some((d) => d.status === "pending"));
}

/** Only attempts can be sent again: a pending row is a request the worker has not sent yet. */
export function canRetry(delivery: Pick<WebhookDelivery, "status">): boolean {
  return delivery.status !== "pending";
}

/** When the previous secret stops signing: 24 hours after the rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function previousSecretUntil(rotatedAt: number): Date {
  return new Date(rotatedAt + ROTATION_OVERLAP_MS);
}
