import { describe, expect, it } from "vitest";
import type { Webhook } from "@/api/types";
import {
  ALL_EVENTS,
  canRetry,
  deliveryStatusLabel,
  EVENT_TYPES,
  eventTypesLabel,
  hasPendingDelivery,
  httpStatusLabel,
  latencyLabel,
  parseDeliveryPage,
  previousSecretUntil,
  selectionFromTypes,
  toggleType,
  typesFromSelection,
  webhookName,
  webhookStateText,
  type WebhookDeliveryPage,
} from "./webhooks";

const at = (iso: string) => `at ${iso}`;

const webhook = (extra: Partial<Webhook> = {}): Webhook => ({
  id: "0190f1f0-0000-7000-8000-000000000001",
  url: "https://hooks.example.com/support",
  description: "",
  eventTypes: ["message.created"],
  enabled: true,
  state: "healthy",
  disabledReason: null,
  failingSince: null,
  lastError: null,
  createdAt: "2026-11-26T10:00:00Z",
  ...extra,
});

describe("the event type catalogue", () => {
  it("is the event log's, in its order", () => {
    expect(EVENT_TYPES.map((e) => e.type)).toEqual([
      "conversation.created",
      "conversation.updated",
      "message.created",
      "contact.created",
      "contact.updated",
      "ticket.created",
      "ticket.updated",
      "ticket_comment.created",
      "agent.updated",
      "conversation.rated",
    ]);
    for (const { description } of EVENT_TYPES) expect(description).toMatch(/\.$/);
  });
});

describe("event type selection", () => {
  it('reads ["*"] as All events and a list as its types', () => {
    expect(selectionFromTypes(["*"])).toEqual({ all: true, types: new Set() });
    expect(selectionFromTypes(["ticket.created", "message.created"])).toEqual({ all: false, types: new Set(["ticket.created", "message.created"]) });
    expect(selectionFromTypes([])).toEqual({ all: false, types: new Set() });
  });

  it("leaves out types the catalogue does not have", () => {
    expect(selectionFromTypes(["message.created", "webhook.test", "message.sent"]).types).toEqual(new Set(["message.created"]));
  });

  it('sends ["*"] for All events, whatever else is ticked', () => {
    const ticked = toggleType(selectionFromTypes(["message.created"]), ALL_EVENTS, true);
    expect(typesFromSelection(ticked)).toEqual(["*"]);
  });

  it("sends the ticked types in the catalogue's order, once each", () => {
    let selection = selectionFromTypes([]);
    selection = toggleType(selection, "ticket.created", true);
    selection = toggleType(selection, "conversation.created", true);
    selection = toggleType(selection, "ticket.created", true);
    expect(typesFromSelection(selection)).toEqual(["conversation.created", "ticket.created"]);
    expect(typesFromSelection(toggleType(selection, "ticket.created", false))).toEqual(["conversation.created"]);
  });

  it("sends [] when nothing is ticked (the API says what is missing)", () => {
    expect(typesFromSelection(selectionFromTypes([]))).toEqual([]);
  });

  it("keeps the ticked types under All events, for when it is unticked again", () => {
    const before = selectionFromTypes(["message.created", "contact.created"]);
    const all = toggleType(before, ALL_EVENTS, true);
    expect(all.types).toEqual(before.types);
    expect(typesFromSelection(toggleType(all, ALL_EVENTS, false))).toEqual(["message.created", "contact.created"]);
  });

  it("does not change the selection it is given", () => {
    const before = selectionFromTypes(["message.created"]);
    toggleType(before, "ticket.created", true);
    toggleType(before, "message.created", false);
    expect(typesFromSelection(before)).toEqual(["message.created"]);
  });

  it("round-trips an endpoint's types", () => {
    for (const types of [["*"], ["message.created"], ["conversation.created", "agent.updated"]]) {
      expect(typesFromSelection(selectionFromTypes(types))).toEqual(types);
    }
  });
});

describe("eventTypesLabel", () => {
  it("says All events for *, else lists the types", () => {
    expect(eventTypesLabel(["*"])).toBe("All events");
    expect(eventTypesLabel(["message.created", "ticket.created"])).toBe("message.created, ticket.created");
    expect(eventTypesLabel([])).toBe("No events");
  });
});

describe("webhookStateText", () => {
  it("says Healthy", () => {
    expect(webhookStateText(webhook(), at)).toBe("Healthy");
  });

  it("says since when it fails and the last error", () => {
    expect(
      webhookStateText(webhook({ state: "failing", failingSince: "2026-11-26T08:00:00Z", lastError: "the receiver answered 500 Internal Server Error" }), at),
    ).toBe("Failing since at 2026-11-26T08:00:00Z — the receiver answered 500 Internal Server Error");
    expect(webhookStateText(webhook({ state: "failing", failingSince: "2026-11-26T08:00:00Z", lastError: " " }), at)).toBe(
      "Failing since at 2026-11-26T08:00:00Z",
    );
    expect(webhookStateText(webhook({ state: "failing" }), at)).toBe("Failing");
  });

  it("says why the product disabled it, or just Disabled when an Owner did", () => {
    expect(webhookStateText(webhook({ state: "disabled", enabled: false, disabledReason: "the receiver answered 410 Gone" }), at)).toBe(
      "Disabled — the receiver answered 410 Gone",
    );
    expect(webhookStateText(webhook({ state: "disabled", enabled: false }), at)).toBe("Disabled");
    expect(webhookStateText(webhook({ state: "disabled", enabled: false, failingSince: "2026-11-26T08:00:00Z", lastError: "timed out" }), at)).toBe("Disabled");
  });
});

describe("webhookName", () => {
  it("is the description, else the URL", () => {
    expect(webhookName(webhook({ description: "CRM sync" }))).toBe("CRM sync");
    expect(webhookName(webhook({ description: "  " }))).toBe("https://hooks.example.com/support");
  });
});

describe("parseDeliveryPage", () => {
  const row = {
    id: "d1",
    eventId: "e1",
    eventType: "message.created",
    attempt: 2,
    status: "failed",
    responseStatus: 500,
    latencyMs: 132,
    responseBody: '{"error":"down"}',
    error: "the receiver answered 500 Internal Server Error",
    createdAt: "2026-11-26T10:00:00Z",
  };

  it("reads the API's rows and cursor", () => {
    expect(parseDeliveryPage({ deliveries: [row], nextCursor: "c2" })).toEqual({ deliveries: [row], nextCursor: "c2" });
  });

  it("reads a pending request, with nothing measured", () => {
    const pending = { ...row, id: "d2", attempt: 1, status: "pending", responseStatus: null, latencyMs: null, responseBody: null, error: null };
    expect(parseDeliveryPage({ deliveries: [pending], nextCursor: null })).toEqual({ deliveries: [pending], nextCursor: null });
  });

  it("copes with missing fields and leaves out rows without an id", () => {
    expect(parseDeliveryPage({ deliveries: [{ id: "d3", status: "sent" }, { status: "failed" }, null] })).toEqual({
      deliveries: [
        {
          id: "d3",
          eventId: "",
          eventType: "",
          attempt: 1,
          status: "failed",
          responseStatus: null,
          latencyMs: null,
          responseBody: null,
          error: null,
          createdAt: "",
        },
      ],
      nextCursor: null,
    });
    expect(parseDeliveryPage(null)).toEqual({ deliveries: [], nextCursor: null });
    expect(parseDeliveryPage({ deliveries: "no" })).toEqual({ deliveries: [], nextCursor: null });
  });
});

describe("the delivery log's cells", () => {
  it("labels statuses, latency and HTTP status", () => {
    expect(deliveryStatusLabel("succeeded")).toBe("Succeeded");
    expect(deliveryStatusLabel("failed")).toBe("Failed");
    expect(deliveryStatusLabel("pending")).toBe("Pending");
    expect(latencyLabel(null)).toBe("—");
    expect(latencyLabel(0)).toBe("0 ms");
    expect(latencyLabel(132.4)).toBe("132 ms");
    expect(latencyLabel(1540)).toBe("1.5 s");
    expect(latencyLabel(15000)).toBe("15.0 s");
    expect(httpStatusLabel(null)).toBe("—");
    expect(httpStatusLabel(204)).toBe("204");
  });

  it("offers Retry on attempts, not on requests the worker has not sent", () => {
    expect(canRetry({ status: "failed" })).toBe(true);
    expect(canRetry({ status: "succeeded" })).toBe(true);
    expect(canRetry({ status: "pending" })).toBe(false);
  });
});

describe("hasPendingDelivery", () => {
  const page = (...statuses: ("succeeded" | "failed" | "pending")[]): WebhookDeliveryPage => ({
    deliveries: statuses.map((status, i) => ({
      id: `d${i}`,
      eventId: `e${i}`,
      eventType: "webhook.test",
      attempt: 1,
      status,
      responseStatus: null,
      latencyMs: null,
      responseBody: null,
      error: null,
      createdAt: "2026-11-26T10:00:00Z",
    })),
    nextCursor: null,
  });

  it("is true while any row of any page is pending", () => {
    expect(hasPendingDelivery([])).toBe(false);
    expect(hasPendingDelivery([page("succeeded", "failed")])).toBe(false);
    expect(hasPendingDelivery([page("succeeded"), page("failed", "pending")])).toBe(true);
    expect(hasPendingDelivery([page("pending")])).toBe(true);
  });
});

describe("previousSecretUntil", () => {
  it("is 24 hours after the rotation", () => {
    expect(previousSecretUntil(Date.parse("2026-11-26T10:00:00Z")).toISOString()).toBe("2026-11-27T10:00:00.000Z");
  });
});
