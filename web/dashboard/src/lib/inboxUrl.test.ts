import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  clearFilters,
  DEFAULT_VIEW,
  hasFilters,
  inboxHref,
  inboxQuery,
  listQuery,
  parseInboxView,
  showsView,
  viewFilters,
  viewFromFilters,
  withAgent,
  withDay,
  withTab,
} from "./inboxUrl";

const view = (over: Partial<typeof DEFAULT_VIEW>) => ({ ...DEFAULT_VIEW, ...over });
const parse = (query: string) => parseInboxView(new URLSearchParams(query));
const AGENT = "3f2b8c1d-52b5-4c0e-9f54-2a4f1c1f7d10";

// Days become instants in the agent's time zone: these tests read them in New York, where
// summer time ends on 2026-11-01 (a 25-hour day).
const zone = process.env.TZ;
function inNewYork() {
  beforeEach(() => {
    process.env.TZ = "America/New_York";
  });
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
}

describe("inbox URL state", () => {
  it("reads the tab and status", () => {
    expect(parseInboxView(new URLSearchParams("tab=me&status=pending"))).toEqual(view({ tab: "me", status: "pending" }));
  });
  it("falls back to All and no filter for missing or unknown values", () => {
    expect(parseInboxView(new URLSearchParams(""))).toEqual(DEFAULT_VIEW);
    expect(parseInboxView(new URLSearchParams("tab=boss&status=deleted&contact=x&channel=fax&priority=now&unread=yes&agent=x&created_from=x"))).toEqual(DEFAULT_VIEW);
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
    expect(viewFromFilters({ assignee: "someone" })).toBeNull();
    expect(viewFromFilters({ createdAfter: "not a time" })).toBeNull();
    expect(viewFromFilters({ updatedBefore: "0001-01-01T00:00:00Z" })).toBeNull();
    expect(showsView(DEFAULT_VIEW, { createdAfter: "not a time" })).toBe(false);
  });
});

describe("one agent's conversations", () => {
  it("are read from ?agent= with the All tab, the id in lower case", () => {
    expect(parse(`agent=${AGENT.toUpperCase()}`)).toEqual(view({ agent: AGENT }));
    expect(parse(`tab=all&agent=${AGENT}`)).toEqual(view({ agent: AGENT }));
  });
  it("give way to Mine and Unassigned, and bad ids are ignored", () => {
    expect(parse(`tab=me&agent=${AGENT}`)).toEqual(view({ tab: "me" }));
    expect(parse(`tab=unassigned&agent=${AGENT}`)).toEqual(view({ tab: "unassigned" }));
    expect(parse("agent=me")).toEqual(DEFAULT_VIEW);
    expect(parse("agent=")).toEqual(DEFAULT_VIEW);
  });
  it("are written to the URL and read back", () => {
    const shown = view({ agent: AGENT, status: "open" });
    expect(inboxQuery(shown)).toBe(`?agent=${AGENT}&status=open`);
    expect(parse(inboxQuery(shown))).toEqual(shown);
  });
  it("move to All when an agent is picked, and go when a tab is", () => {
    expect(withAgent(view({ tab: "me", status: "open" }), AGENT)).toEqual(view({ agent: AGENT, status: "open" }));
    expect(withAgent(view({ agent: AGENT }), null)).toEqual(DEFAULT_VIEW);
    expect(withAgent(view({ tab: "unassigned" }), null)).toEqual(view({ tab: "unassigned" }));
    expect(withTab(view({ agent: AGENT }), "me")).toEqual(view({ tab: "me" }));
    expect(withTab(view({ agent: AGENT }), "all")).toEqual(DEFAULT_VIEW);
  });
  it("are asked of the API as the assignee", () => {
    expect(listQuery(view({ agent: AGENT }))).toEqual({ assignee: AGENT });
    expect(listQuery(view({ tab: "me" }))).toEqual({ assignee: "me" });
    expect(listQuery(DEFAULT_VIEW)).toEqual({ assignee: "all" });
  });
});

describe("day ranges in the URL", () => {
  const days = view({ createdFrom: "2026-11-01", createdTo: "2026-11-28", updatedFrom: "2026-11-20", updatedTo: "2026-11-20" });
  it("are plain days, written after the other filters and read back", () => {
    expect(inboxQuery(days)).toBe("?created_from=2026-11-01&created_to=2026-11-28&updated_from=2026-11-20&updated_to=2026-11-20");
    expect(parse(inboxQuery(days))).toEqual(days);
    const all = view({ ...days, tab: "all", agent: AGENT, priority: "high", unread: true });
    expect(parse(inboxQuery(all))).toEqual(all);
  });
  it("ignore what is not a day", () => {
    expect(parse("created_from=2026-02-31&created_to=yesterday&updated_from=0002-11-01&updated_to=2026-11-28T00:00:00Z")).toEqual(DEFAULT_VIEW);
    expect(parse("created_from=2026-11-1&updated_to=28.11.2026")).toEqual(DEFAULT_VIEW);
  });
  it("keep the start of a range that runs backwards, and drop its end", () => {
    expect(parse("created_from=2026-11-10&created_to=2026-11-05")).toEqual(view({ createdFrom: "2026-11-10" }));
    expect(parse("updated_from=2026-11-10&updated_to=2026-11-09")).toEqual(view({ updatedFrom: "2026-11-10" }));
    expect(parse("created_from=2026-11-10&created_to=2026-11-10")).toEqual(view({ createdFrom: "2026-11-10", createdTo: "2026-11-10" }));
  });
  it("change one end at a time; an end past the other clears the other", () => {
    expect(withDay(DEFAULT_VIEW, "createdFrom", "2026-11-01")).toEqual(view({ createdFrom: "2026-11-01" }));
    const range = view({ createdFrom: "2026-11-01", createdTo: "2026-11-28" });
    expect(withDay(range, "createdTo", "2026-11-15")).toEqual(view({ createdFrom: "2026-11-01", createdTo: "2026-11-15" }));
    expect(withDay(range, "createdFrom", "2026-12-01")).toEqual(view({ createdFrom: "2026-12-01" }));
    expect(withDay(range, "createdTo", "2026-10-31")).toEqual(view({ createdTo: "2026-10-31" }));
    expect(withDay(range, "createdFrom", null)).toEqual(view({ createdTo: "2026-11-28" }));
    expect(withDay(range, "updatedTo", "2026-10-01")).toEqual(view({ ...range, updatedTo: "2026-10-01" }));
    expect(withDay(range, "createdTo", "2026-11-31")).toEqual(view({ createdFrom: "2026-11-01" }));
  });
});

describe("clearing the filters", () => {
  it("keeps the tab and the contact", () => {
    const contact = "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10";
    const busy = view({ tab: "me", contact, status: "open", label: AGENT, channel: "chat", priority: "low", unread: true, createdFrom: "2026-11-01", updatedTo: "2026-11-02" });
    expect(hasFilters(busy)).toBe(true);
    expect(clearFilters(busy)).toEqual(view({ tab: "me", contact }));
    expect(hasFilters(clearFilters(busy))).toBe(false);
    expect(clearFilters(view({ agent: AGENT }))).toEqual(DEFAULT_VIEW);
    expect(hasFilters(view({ agent: AGENT }))).toBe(true);
    expect(hasFilters(view({ tab: "unassigned" }))).toBe(false);
  });
});

describe("days asked of the API", () => {
  inNewYork();
  it("start at local midnight; an end is the next day's midnight, exclusive, so the whole day is in", () => {
    const days = view({ createdFrom: "2026-10-01", createdTo: "2026-10-31", updatedFrom: "2026-11-01", updatedTo: "2026-11-01" });
    expect(listQuery(days)).toEqual({
      assignee: "all",
      createdAfter: "2026-10-01T04:00:00.000Z",
      // Summer time ends on the 1st of November: the 31st ends at 04:00 UTC, the 1st at 05:00 UTC the day after.
      createdBefore: "2026-11-01T04:00:00.000Z",
      updatedAfter: "2026-11-01T04:00:00.000Z",
      updatedBefore: "2026-11-02T05:00:00.000Z",
    });
  });
  it("come with the other filters, the contact included", () => {
    const contact = "0b6b2f4e-52b5-4c0e-9f54-2a4f1c1f7d10";
    expect(listQuery(view({ agent: AGENT, contact, status: "pending", unread: true, createdTo: "2026-11-28" }))).toEqual({
      assignee: AGENT,
      contactId: contact,
      status: "pending",
      unread: true,
      createdBefore: "2026-11-29T05:00:00.000Z",
    });
  });
});

describe("saved views with an agent and days", () => {
  inNewYork();
  const shown = view({ agent: AGENT, status: "open", createdFrom: "2026-11-01", createdTo: "2026-11-28", updatedFrom: "2026-11-20" });
  it("keep the agent as the assignee and the days as the instants the API filters by", () => {
    expect(viewFilters(shown)).toEqual({
      assignee: AGENT,
      status: "open",
      createdAfter: "2026-11-01T04:00:00.000Z",
      createdBefore: "2026-11-29T05:00:00.000Z",
      updatedAfter: "2026-11-20T05:00:00.000Z",
    });
    expect(viewFilters(view({ updatedTo: "2026-11-20", contact: AGENT }))).toEqual({ updatedBefore: "2026-11-21T05:00:00.000Z" });
  });
  it("open as the inbox they were saved from", () => {
    expect(viewFromFilters(viewFilters(shown))).toEqual(shown);
    expect(showsView(shown, viewFilters(shown))).toBe(true);
    expect(showsView(view({ ...shown, createdTo: null }), viewFilters(shown))).toBe(false);
    expect(showsView(view({ ...shown, contact: AGENT }), viewFilters(shown))).toBe(false);
    expect(viewFromFilters({ assignee: AGENT.toUpperCase() })).toEqual(view({ agent: AGENT }));
  });
  it("saved through the API at other times show as the days those times fall in", () => {
    expect(
      viewFromFilters({
        createdAfter: "2026-11-01T15:00:00Z",
        createdBefore: "2026-11-05T15:00:00Z",
        updatedAfter: "2026-11-10T00:00:00-05:00",
        updatedBefore: "2026-11-12T00:00:00-05:00",
      }),
    ).toEqual(view({ createdFrom: "2026-11-01", createdTo: "2026-11-05", updatedFrom: "2026-11-10", updatedTo: "2026-11-11" }));
  });
});
