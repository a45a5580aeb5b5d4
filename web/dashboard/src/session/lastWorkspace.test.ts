import { describe, expect, it } from "vitest";
import { startingWorkspace } from "./lastWorkspace";

describe("startingWorkspace", () => {
  const a = { id: "a" };
  const b = { id: "b" };
  it("takes the only workspace, remembered or not", () => {
    expect(startingWorkspace([a], null)).toBe("a");
    expect(startingWorkspace([a], "b")).toBe("a");
  });
  it("takes the remembered workspace among several", () => {
    expect(startingWorkspace([a, b], "b")).toBe("b");
  });
  it("leaves the choice to the person otherwise", () => {
    expect(startingWorkspace([a, b], null)).toBeNull();
    expect(startingWorkspace([a, b], "gone")).toBeNull();
    expect(startingWorkspace([], "a")).toBeNull();
  });
});
