import { describe, expect, it } from "vitest";
import type { SearchHit } from "@/api/types";
import { displayOrder, groupHits, highlightRuns, hitHref, isSearchShortcut, moveActive } from "./search";

const hit = (type: SearchHit["type"], id: string, extra: Partial<SearchHit> = {}): SearchHit => ({
  type,
  id,
  title: id,
  highlight: "",
  rank: 0.1,
  createdAt: "2026-11-28T10:00:00Z",
  ...extra,
});

describe("highlightRuns", () => {
  it("splits marked words from the text around them", () => {
    expect(highlightRuns("a <mark>refund</mark> please")).toEqual([
      { text: "a ", marked: false },
      { text: "refund", marked: true },
      { text: " please", marked: false },
    ]);
  });

  it("turns escaped markup back into text, never into elements", () => {
    expect(highlightRuns("&lt;img onerror=&quot;x&quot;&gt; &amp; <mark>&#39;a&#39;</mark>")).toEqual([
      { text: '<img onerror="x"> & ', marked: false },
      { text: "'a'", marked: true },
    ]);
  });

  it("keeps an unknown entity as it is", () => {
    expect(highlightRuns("&copy;")).toEqual([{ text: "&copy;", marked: false }]);
  });
});

describe("grouping and order", () => {
  const hits = [hit("contact", "p"), hit("message", "m1"), hit("conversation", "c"), hit("message", "m2")];

  it("groups by type in a fixed order, best first within each", () => {
    expect(groupHits(hits).map((g) => [g.type, g.hits.map((h) => h.id)])).toEqual([
      ["conversation", ["c"]],
      ["message", ["m1", "m2"]],
      ["contact", ["p"]],
    ]);
  });

  it("walks the results as the groups show them", () => {
    expect(displayOrder(hits).map((h) => h.id)).toEqual(["c", "m1", "m2", "p"]);
  });
});

describe("hitHref", () => {
  it("opens each type where it lives", () => {
    expect(hitHref(hit("conversation", "c1"))).toBe("/inbox/c1");
    expect(hitHref(hit("message", "m1", { conversationId: "c1" }))).toBe("/inbox/c1?message=m1");
    expect(hitHref(hit("ticket", "t1"))).toBe("/tickets/t1");
    expect(hitHref(hit("contact", "p1"))).toBe("/inbox?contact=p1");
  });
});

describe("keys", () => {
  it("moves with the arrows, wrapping, and ignores other keys", () => {
    expect(moveActive("ArrowDown", 2, 3)).toBe(0);
    expect(moveActive("ArrowUp", 0, 3)).toBe(2);
    expect(moveActive("End", 0, 3)).toBe(2);
    expect(moveActive("Home", 2, 3)).toBe(0);
    expect(moveActive("a", 0, 3)).toBeNull();
    expect(moveActive("ArrowDown", 0, 0)).toBeNull();
  });

  it("opens on Ctrl+K and Cmd+K only", () => {
    const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
    expect(isSearchShortcut(key("k", { ctrlKey: true }))).toBe(true);
    expect(isSearchShortcut(key("K", { metaKey: true }))).toBe(true);
    expect(isSearchShortcut(key("k"))).toBe(false);
    expect(isSearchShortcut(key("k", { ctrlKey: true, shiftKey: true }))).toBe(false);
  });
});
