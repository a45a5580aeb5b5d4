import { describe, expect, it } from "vitest";
import { embedSnippet, parseOrigins } from "./origins";

describe("allowed origins", () => {
  it("are read one per line, normalised and deduplicated", () => {
    expect(parseOrigins("https://shop.example.com\n\n http://127.0.0.1:8080/ \nHTTPS://Shop.Example.com")).toEqual({
      origins: ["https://shop.example.com", "http://127.0.0.1:8080"],
      invalid: [],
    });
  });

  it("refuse paths, other schemes and non-URLs", () => {
    expect(parseOrigins("https://a.example/path\nftp://b.example\nexample.com").invalid).toEqual([
      "https://a.example/path",
      "ftp://b.example",
      "example.com",
    ]);
  });
});

describe("embed snippet", () => {
  it("points at the widget's loader with the site key", () => {
    expect(embedSnippet("http://localhost:3001", "swk_abc")).toBe(
      '<script src="http://localhost:3001/widget.js" data-site-key="swk_abc" async></script>',
    );
  });
});
