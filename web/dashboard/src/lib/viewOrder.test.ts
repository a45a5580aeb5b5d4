import { describe, expect, it } from "vitest";
import { moveChanges } from "./viewOrder";

const group = (...positions: number[]) => positions.map((position, n) => ({ id: `v${n}`, position }));

describe("moving a saved view", () => {
  it("swaps two neighbours of a numbered group", () => {
    expect(moveChanges(group(0, 1, 2), "v1", -1)).toEqual([
      { id: "v1", position: 0 },
      { id: "v0", position: 1 },
    ]);
    expect(moveChanges(group(0, 1, 2), "v1", 1)).toEqual([
      { id: "v2", position: 1 },
      { id: "v1", position: 2 },
    ]);
  });
  it("numbers a group whose positions have gaps or ties", () => {
    expect(moveChanges(group(3, 3, 9), "v2", -1)).toEqual([
      { id: "v0", position: 0 },
      { id: "v2", position: 1 },
      { id: "v1", position: 2 },
    ]);
  });
  it("changes nothing past either end or for a view not in the group", () => {
    expect(moveChanges(group(0, 1), "v0", -1)).toEqual([]);
    expect(moveChanges(group(0, 1), "v1", 1)).toEqual([]);
    expect(moveChanges(group(0, 1), "nope", 1)).toEqual([]);
  });
});
