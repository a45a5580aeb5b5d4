import { describe, expect, it } from "vitest";
import { inboxHref, inboxQuery, parseInboxView } from "./inboxUrl";

describe("inbox URL state", () => {
  it("reads the tab and status", () => {
    expect(parseInboxView(new URLSearchParams("tab=me&status=pending"))).toEqual({ tab: "me", status: "pending" });
  });
  it("falls back to All and any status for missing or unknown values", () => {
    expect(parseInboxView(new URLSearchParams(""))).toEqual({ tab: "all", status: null });
    expect(parseInboxView(new URLSearchParams("tab=boss&status=deleted"))).toEqual({ tab: "all", status: null });
  });
  it("writes only what differs from the default, and reads back what it wrote", () => {
    expect(inboxQuery({ tab: "all", status: null })).toBe("");
    const view = { tab: "unassigned", status: "open" } as const;
    expect(inboxQuery(view)).toBe("?tab=unassigned&status=open");
    expect(parseInboxView(new URLSearchParams(inboxQuery(view)))).toEqual(view);
  });
  it("keeps the view in a conversation's link and in the way back to the list", () => {
    expect(inboxHref({ tab: "me", status: null }, "c1")).toBe("/inbox/c1?tab=me");
    expect(inboxHref({ tab: "me", status: null }, null)).toBe("/inbox?tab=me");
  });
});
