import { describe, expect, it } from "vitest";
import { needsNameFallback } from "./placeholders";

describe("needsNameFallback", () => {
  it("flags the contact's name without a fallback", () => {
    expect(needsNameFallback("Thanks, {{contact.name}}!")).toBe(true);
    expect(needsNameFallback("Thanks, {{ contact.name }}!")).toBe(true);
  });
  it("accepts a fallback, and text without the name", () => {
    expect(needsNameFallback('Thanks, {{contact.name | fallback: "there"}}!')).toBe(false);
    expect(needsNameFallback("Thanks!")).toBe(false);
  });
});
