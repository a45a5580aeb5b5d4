import { describe, expect, it } from "vitest";
import { counterState } from "./counter";

describe("counterState", () => {
  it("is hidden under 9,000 characters", () => {
    expect(counterState("a".repeat(8_999))).toEqual({ shown: false, over: false });
  });
  it("is shown from 9,000 with what remains", () => {
    expect(counterState("a".repeat(9_000))).toEqual({ shown: true, over: false, count: 9_000, remaining: 1_000 });
    expect(counterState("a".repeat(10_000))).toMatchObject({ over: false, remaining: 0 });
  });
  it("is over the limit past 10,000", () => {
    expect(counterState("a".repeat(10_001))).toEqual({ shown: true, over: true, count: 10_001, remaining: -1 });
  });
  it("counts an emoji as one character, as the API does", () => {
    expect(counterState("😀".repeat(10_000))).toMatchObject({ over: false, count: 10_000 });
  });
});
