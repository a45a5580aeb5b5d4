import { describe, expect, it } from "vitest";
import { checkLength, COUNTER_FROM, MAX_MESSAGE_CHARS } from "./limit";

describe("the message length", () => {
  it("says nothing far from the limit", () => {
    expect(checkLength("Hello")).toEqual({ count: 5, over: false, text: null });
    expect(checkLength("a".repeat(COUNTER_FROM - 1)).text).toBeNull();
  });

  it("counts from 9,000 characters", () => {
    expect(checkLength("a".repeat(COUNTER_FROM))).toEqual({ count: 9000, over: false, text: "9,000 / 10,000 characters" });
    expect(checkLength("a".repeat(MAX_MESSAGE_CHARS))).toMatchObject({ over: false, text: "10,000 / 10,000 characters" });
  });

  it("refuses over 10,000 characters, with how much to cut", () => {
    expect(checkLength("a".repeat(MAX_MESSAGE_CHARS + 1))).toEqual({
      count: 10_001,
      over: true,
      text: "10,001 / 10,000 characters: too long to send. Shorten it by 1.",
    });
    expect(checkLength("a".repeat(20_000))).toMatchObject({ over: true, count: 20_000 });
  });

  it("counts as the API does: trimmed, by code point", () => {
    expect(checkLength(`  ${"a".repeat(MAX_MESSAGE_CHARS)}\n\n`).over).toBe(false);
    // An emoji is two UTF-16 units but one character.
    expect(checkLength("😀".repeat(MAX_MESSAGE_CHARS)).over).toBe(false);
    expect(checkLength("😀".repeat(MAX_MESSAGE_CHARS + 1)).over).toBe(true);
  });
});
