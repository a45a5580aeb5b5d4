import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, inboxHref, inboxQuery, parseInboxView, showsView, viewFilters, viewFromFilters } from "./inboxUrl";

const view = (over: Partial<typeof DEFAULT_VIEW>) => ({ ...DEFAULT_VIEW, ...over });

describe("inbox URL state", () => {
  it("reads the tab and status", () => {
    expect(parseInboxView(new URLSearchParams("tab=me&status=pending"))).toEqual(view({ tab: "me", status: "pending" }));
  });
  it("falls back to All and no filter for missing or unknown values", () => {
    expect(parseInboxView(new URLSearchParams(""))).toEqual(DEFAULT_VIEW);
    expect(parseInboxView(new URLSearchParams("tab=boss&status=deleted&contact=x&channel=fax&priority=now&unread=yes"))).toEqual(DEFAULT_VIEW);
  });
  it("writes only what differs from the default, and reads back what it wrote", () => {
    expect(inboxQuery(DEFAULT_VIEW)).toBe("");
    const shown = view({ tab: "unassigned", status: "open" });
    expect(inboxQuery(shown)).toBe("?tab=unassigned&status=open");
    expect(parseInboxView(new URLSearchParams(inboxQuery(shown)))).toEqual(shown);
  });
  it("reads and writes the channel, the priority and unread", () => {
    const shown = view({ channel: "email", priority: "urgent", unread: true });
    expect(inboxQuery(shown)).toBe("?channel=email&priority=urgent&unread=1");
    expect(parseInboxView(new URLSearchParams(inboxQuery(shown)))).toEqual(shown);
  });
  it("reads and writes one contact's conversations", () => {
    const id = "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10";
    const shown = parseInboxView(new URLSearchParams(`contact=${id}`));
    expect(shown).toEqual(view({ contact: id }));
    expect(inboxQuery(shown)).toBe(`?contact=${id}`);
  });
  it("reads and writes a label", () => {
    const id = "7d3c8f6e-52b5-4c0e-9f54-2a4f1c1f7d10";
    const shown = parseInboxView(new URLSearchParams(`status=open&label=${id.toUpperCase()}`));
    expect(shown).toEqual(view({ status: "open", label: id }));
    expect(inboxQuery(shown)).toBe(`?status=open&label=${id}`);
    expect(parseInboxView(new URLSearchParams("label=nope")).label).toBeNull();
  });
  it("keeps the view in a conversation's link and in the way back to the list", () => {
    expect(inboxHref(view({ tab: "me" }), "c1")).toBe("/inbox/c1?tab=me");
    expect(inboxHref(view({ tab: "me" }), null)).toBe("/inbox?tab=me");
  });
});

describe("saved views", () => {
  const label = "7d3c8f6e-52b5-4c0e-9f54-2a4f1c1f7d10";
  it("keep what the inbox shows, leaving defaults and the contact out", () => {
    expect(viewFilters(DEFAULT_VIEW)).toEqual({});
    expect(viewFilters(view({ tab: "me", status: "open", label, channel: "chat", priority: "high", unread: true, contact: label }))).toEqual({
      assignee: "me",
      status: "open",
      label,
      channel: "chat",
      priority: "high",
      unread: true,
    });
  });
  it("open as the inbox they were saved from", () => {
    const shown = view({ tab: "unassigned", priority: "urgent", unread: true });
    expect(viewFromFilters(viewFilters(shown))).toEqual(shown);
    expect(showsView(shown, viewFilters(shown))).toBe(true);
    expect(showsView(view({ tab: "unassigned" }), viewFilters(shown))).toBe(false);
    expect(showsView(DEFAULT_VIEW, {})).toBe(true);
  });
  it("that the inbox cannot show are told apart", () => {
    expect(viewFromFilters({ assignee: "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10" })).toBeNull();
    expect(viewFromFilters({ createdAfter: "2026-01-01T00:00:00Z" })).toBeNull();
    expect(showsView(DEFAULT_VIEW, { createdAfter: "2026-01-01T00:00:00Z" })).toBe(false);
  });
});
