import { describe, expect, it } from "vitest";
import { visitorContext } from "./context";

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
