import { HttpError } from "@microsoft/signalr";
import { describe, expect, it } from "vitest";
import { agentEvents, agentRetryDelay } from "./hub";

describe("the agent's hub reconnects", () => {
  it("back off to 30 s and keep trying", () => {
    expect(agentRetryDelay(0, new Error("socket closed"))).toBe(0);
    expect(agentRetryDelay(3, undefined)).toBe(5000);
    expect(agentRetryDelay(50, undefined)).toBe(30_000);
  });

  it("stop when negotiate refuses the credential, as the client reports it or wraps it", () => {
    expect(agentRetryDelay(1, new HttpError("Forbidden", 403))).toBeNull();
    expect(agentRetryDelay(1, new HttpError("Unauthorized", 401))).toBeNull();
    expect(agentRetryDelay(1, new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'"))).toBeNull();
    expect(agentRetryDelay(1, new HttpError("Unavailable", 503))).toBe(1000);
  });
});

describe("the agent's hub events", () => {
  it("hear every logged change by its event name, and typing and presence", () => {
    const logged: unknown[] = [];
    const events = agentEvents({ logged: (e) => logged.push(e), typing: () => {}, presenceChanged: () => {} });
    expect(Object.keys(events).sort()).toEqual(
      [
        "AgentUpdated",
        "ContactCreated",
        "ContactUpdated",
        "ConversationCreated",
        "ConversationRated",
        "ConversationUpdated",
        "MessageCreated",
        "PresenceChanged",
        "TicketCommentCreated",
        "TicketCreated",
        "TicketUpdated",
        "Typing",
      ].sort(),
    );
    (events.TicketCommentCreated as (p: unknown) => void)({ seq: 3, ticketId: "t", comment: { id: "c" } });
    expect(logged).toEqual([{ name: "TicketCommentCreated", payload: { seq: 3, ticketId: "t", comment: { id: "c" } } }]);
  });
});
