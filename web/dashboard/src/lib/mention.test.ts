import { describe, expect, it } from "vitest";
import { insertMention, matchAgents, mentionAt } from "./mention";

describe("mentionAt", () => {
  it("finds the word after @ at the caret", () => {
    expect(mentionAt("ask @oli", 8)).toEqual({ query: "oli", start: 4 });
    expect(mentionAt("@", 1)).toEqual({ query: "", start: 0 });
  });
  it("ignores an address and a finished word", () => {
    expect(mentionAt("mail carla@example", 18)).toBeNull();
    expect(mentionAt("@olivia said", 12)).toBeNull();
  });
});

describe("matchAgents", () => {
  const agents = [{ displayName: "Tom Olsen" }, { displayName: "Olivia Park" }, { displayName: "Ana" }];
  it("puts names starting with the query before names with a later word starting with it", () => {
    expect(matchAgents(agents, "ol").map((a) => a.displayName)).toEqual(["Olivia Park", "Tom Olsen"]);
  });
  it("offers everyone for an empty query, up to the limit", () => {
    expect(matchAgents(agents, "")).toHaveLength(3);
    expect(matchAgents(agents, "", 2)).toHaveLength(2);
  });
  it("offers nobody when nothing matches", () => {
    expect(matchAgents(agents, "zz")).toEqual([]);
  });
});

describe("insertMention", () => {
  it("replaces @query with the full name and a space", () => {
    expect(insertMention("ask @oli now", 4, 8, "Olivia Park")).toEqual({ text: "ask @Olivia Park  now", caret: 17 });
  });
});
