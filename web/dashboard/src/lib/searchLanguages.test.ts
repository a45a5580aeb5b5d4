import { describe, expect, it } from "vitest";
import { SEARCH_LANGUAGES, searchLanguageName } from "./searchLanguages";

describe("search languages", () => {
  it("lists every language once, by name, with no stemming last", () => {
    expect(new Set(SEARCH_LANGUAGES).size).toBe(SEARCH_LANGUAGES.length);
    expect(SEARCH_LANGUAGES).toHaveLength(29);
    expect(SEARCH_LANGUAGES[0]).toBe("arabic");
    expect(SEARCH_LANGUAGES.at(-1)).toBe("simple");
    expect(searchLanguageName("french")).toBe("French");
  });
});
