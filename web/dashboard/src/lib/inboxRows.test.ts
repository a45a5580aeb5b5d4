import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, type InboxView, listQuery } from "./inboxUrl";
import { belongsTo } from "@/realtime/reducers";
import type { Conversation } from "@/api/types";
import { listKey } from "./inboxRows";

const view = (over: Partial<InboxView>) => ({ ...DEFAULT_VIEW, ...over });
const AGENT = "3f2b8c1d-52b5-4c0e-9f54-2a4f1c1f7d10";
const row = (over: { assigneeId?: string | null; createdAt?: string; updatedAt?: string }) =>
  ({
    assigneeId: null,
    createdAt: "2026-11-10T12:00:00Z",
    updatedAt: "2026-11-12T12:00:00Z",
    status: "open",
    channel: "chat",
    priority: null,
    labels: [],
    contact: { id: "c" },
    ...over,
  }) as unknown as Conversation;
/** Whether a hub event's conversation belongs to the list read with `key`. */
const meetsQuery = (conversation: Conversation, key: Partial<ReturnType<typeof listKey>>) =>
  belongsTo(conversation, { assignee: "all", status: null, ...key }, null);

describe("a list's cache key", () => {
  it("is the same as before for the filters the live updates know", () => {
    expect(listKey(DEFAULT_VIEW)).toEqual({ assignee: "all", status: null });
    const label = "7d3c8f6e-52b5-4c0e-9f54-2a4f1c1f7d10";
    expect(listKey(view({ tab: "me", status: "open", label, channel: "email", priority: "high", unread: true }))).toEqual({
      assignee: "me",
      status: "open",
      labelId: label,
      channel: "email",
      priority: "high",
      unread: true,
    });
  });
  it("names the agent and the instants the list was read with", () => {
    const shown = view({ agent: AGENT, createdFrom: "2026-11-01", updatedTo: "2026-11-28" });
    const query = listQuery(shown);
    expect(listKey(shown)).toEqual({ assignee: "all", status: null, agentId: AGENT, createdAfter: query.createdAfter, updatedBefore: query.updatedBefore });
  });
});

describe("the conversations a hub event adds to a list", () => {
  it("are one agent's when it names one", () => {
    const query = { agentId: AGENT };
    expect(meetsQuery(row({ assigneeId: AGENT }), query)).toBe(true);
    expect(meetsQuery(row({ assigneeId: AGENT.toUpperCase() }), query)).toBe(true);
    expect(meetsQuery(row({ assigneeId: "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10" }), query)).toBe(false);
    expect(meetsQuery(row({ assigneeId: null }), query)).toBe(false);
    expect(meetsQuery(row({ assigneeId: AGENT }), {})).toBe(true);
  });
  it("fall in the ranges: the start included, the end not", () => {
    const created = { createdAfter: "2026-11-10T12:00:00.000Z", createdBefore: "2026-11-11T00:00:00.000Z" };
    expect(meetsQuery(row({ createdAt: "2026-11-10T12:00:00Z" }), created)).toBe(true);
    expect(meetsQuery(row({ createdAt: "2026-11-10T11:59:59.999Z" }), created)).toBe(false);
    expect(meetsQuery(row({ createdAt: "2026-11-10T23:59:59.999Z" }), created)).toBe(true);
    expect(meetsQuery(row({ createdAt: "2026-11-11T00:00:00Z" }), created)).toBe(false);
    const updated = { updatedAfter: "2026-11-12T00:00:00Z", updatedBefore: "2026-11-12T12:00:00Z" };
    expect(meetsQuery(row({}), updated)).toBe(false);
    expect(meetsQuery(row({ updatedAt: "2026-11-12T11:00:00+00:00" }), updated)).toBe(true);
    expect(meetsQuery(row({ updatedAt: "2026-11-11T23:00:00Z" }), updated)).toBe(false);
  });
  it("are all of them without an agent or a range", () => {
    expect(meetsQuery(row({}), {})).toBe(true);
  });
});
