import { describe, expect, it } from "vitest";
import { avatarColour, initials } from "./avatar";

describe("initials", () => {
  it("takes the first and last word's first letters", () => {
    expect(initials("Olivia Park")).toBe("OP");
    expect(initials("teal otter")).toBe("TO");
    expect(initials("Ana Maria da Silva")).toBe("AS");
  });
  it("takes one letter of a single word, and ? of nothing", () => {
    expect(initials("Tom")).toBe("T");
    expect(initials("  ")).toBe("?");
  });
  it("splits an address into words", () => {
    expect(initials("carla.diaz@example.org")).toBe("CO");
  });
});

describe("avatarColour", () => {
  it("is the same for the same id and differs across ids", () => {
    const a = avatarColour("8d7c5f0e-0000-4000-8000-000000000001");
    expect(avatarColour("8d7c5f0e-0000-4000-8000-000000000001")).toBe(a);
    const colours = new Set(["a", "b", "c", "d", "e", "f", "g", "h"].map((id) => avatarColour(id)));
    expect(colours.size).toBeGreaterThan(1);
  });
});
