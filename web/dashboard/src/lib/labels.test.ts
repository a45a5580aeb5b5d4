import { describe, expect, it } from "vitest";
import { CONVERSATION_STATUSES, PRIORITIES, TICKET_STATUSES } from "@/api/types";
import { priorityLabel, PRIORITIES_BY_URGENCY, statusLabel } from "./labels";

describe("statusLabel", () => {
  it("names every ticket status", () => {
    expect(TICKET_STATUSES.map(statusLabel)).toEqual(["Open", "Pending", "Resolved", "Closed"]);
  });
  it("names conversation statuses the same way as tickets", () => {
    expect(CONVERSATION_STATUSES.map(statusLabel)).toEqual(["Open", "Pending", "Resolved"]);
  });
});

describe("priorityLabel", () => {
  it("names every priority, most pressing first", () => {
    expect(PRIORITIES_BY_URGENCY.map(priorityLabel)).toEqual(["Urgent", "High", "Medium", "Low"]);
  });
  it("lists every priority the API knows", () => {
    expect([...PRIORITIES_BY_URGENCY].sort()).toEqual([...PRIORITIES].sort());
  });
  it("reads a missing priority as None", () => {
    expect(priorityLabel(null)).toBe("None");
    expect(priorityLabel(undefined)).toBe("None");
  });
});
