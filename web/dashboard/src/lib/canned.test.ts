import { describe, expect, it } from "vitest";
import { insertCanned, shortcodeAt } from "./canned";

describe("canned response short codes", () => {
  it("are found at the caret, at the start or after a space", () => {
    expect(shortcodeAt("/gre", 4)).toEqual({ query: "gre", start: 0 });
    expect(shortcodeAt("Hi /", 4)).toEqual({ query: "", start: 3 });
    expect(shortcodeAt("Hi /thanks now", 10)).toEqual({ query: "thanks", start: 3 });
    expect(shortcodeAt("and/or", 6)).toBeNull();
    expect(shortcodeAt("/a b", 4)).toBeNull();
  });

  it("are replaced by the rendered body", () => {
    expect(insertCanned("Hi /gre!", 3, 7, "Hello Ida")).toEqual({ text: "Hi Hello Ida!", caret: 12 });
  });
});
