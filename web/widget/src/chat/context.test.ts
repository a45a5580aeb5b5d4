import { describe, expect, it } from "vitest";
import { TITLE_MAX_CHARS, URL_MAX_LENGTH, visitorContext } from "./context";

describe("the visitor context", () => {
  it("carries the host page and the browser's zone and language", () => {
    expect(
      visitorContext({ url: "https://shop.example/cart", title: "Cart", referrer: "https://search.example/" }, "Europe/Paris", "fr-FR"),
    ).toEqual({
      pageUrl: "https://shop.example/cart",
      pageTitle: "Cart",
      referrer: "https://search.example/",
      timeZone: "Europe/Paris",
      locale: "fr-FR",
    });
  });

  it("leaves out what is unknown or blank", () => {
    expect(visitorContext({ url: "https://shop.example/", title: "", referrer: "" }, undefined, "en")).toEqual({
      pageUrl: "https://shop.example/",
      locale: "en",
    });
    expect(visitorContext(null, "UTC", undefined)).toEqual({ timeZone: "UTC" });
  });
});

describe("what the API would refuse", () => {
  it("leaves out addresses that are no http(s) URL or too long, and shortens a long title", () => {
    const long = `https://shop.example/?q=${"a".repeat(URL_MAX_LENGTH)}`;
    expect(visitorContext({ url: "file:///home/me/page.html", title: "  ", referrer: long }, "UTC", "en")).toEqual({
      timeZone: "UTC",
      locale: "en",
    });
    const title = visitorContext({ url: "https://shop.example/", title: "é".repeat(TITLE_MAX_CHARS + 5), referrer: "" }, undefined, undefined).pageTitle;
    expect([...(title ?? "")]).toHaveLength(TITLE_MAX_CHARS);
  });
});
