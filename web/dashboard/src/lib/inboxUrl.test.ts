import { describe, expect, it } from "vitest";
import { inboxHref, inboxQuery, parseInboxView } from "./inboxUrl";

describe("inbox URL state", () => {
  it("reads the tab and status", () => {
    expect(parseInboxView(new URLSearchParams("tab=me&status=pending"))).toEqual({ tab: "me", status: "pending", contact: null, label: null });
  });
  it("falls back to All and any status for missing or unknown values", () => {
    expect(parseInboxView(new URLSearchParams(""))).toEqual({ tab: "all", status: null, contact: null, label: null });
    expect(parseInboxView(new URLSearchParams("tab=boss&status=deleted&contact=x"))).toEqual({ tab: "all", status: null, contact: null, label: null });
  });
  it("writes only what differs from the default, and reads back what it wrote", () => {
    expect(inboxQuery({ tab: "all", status: null, contact: null, label: null })).toBe("");
    const view = { tab: "unassigned", status: "open", contact: null, label: null } as const;
    expect(inboxQuery(view)).toBe("?tab=unassigned&status=open");
    expect(parseInboxView(new URLSearchParams(inboxQuery(view)))).toEqual(view);
  });
  it("reads and writes one contact's conversations", () => {
    const id = "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10";
    const view = parseInboxView(new URLSearchParams(`contact=${id}`));
    expect(view).toEqual({ tab: "all", status: null, contact: id, label: null });
    expect(inboxQuery(view)).toBe(`?contact=${id}`);
  });
  it("reads and writes a label", () => {
    const id = "7d3c8f6e-52b5-4c0e-9f54-2a4f1c1f7d10";
    const view = parseInboxView(new URLSearchParams(`status=open&label=${id.toUpperCase()}`));
    expect(view).toEqual({ tab: "all", status: "open", contact: null, label: id });
    expect(inboxQuery(view)).toBe(`?status=open&label=${id}`);
    expect(parseInboxView(new URLSearchParams("label=nope")).label).toBeNull();
  });
  it("keeps the view in a conversation's link and in the way back to the list", () => {
    expect(inboxHref({ tab: "me", status: null, contact: null, label: null }, "c1")).toBe("/inbox/c1?tab=me");
    expect(inboxHref({ tab: "me", status: null, contact: null, label: null }, null)).toBe("/inbox?tab=me");
  });
});
