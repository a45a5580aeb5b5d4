import { describe, expect, it } from "vitest";
import { brandColor, DEFAULT_COLOR, DEFAULT_GREETING, imageUrl, lookOf, textOn } from "./branding";

describe("branding", () => {
  it("uses only well-formed colours, with readable text on them", () => {
    expect(brandColor("#AbCdEf")).toBe("#AbCdEf");
    expect(brandColor("red; background: url(x)")).toBe(DEFAULT_COLOR);
    expect(brandColor(null)).toBe(DEFAULT_COLOR);
    expect(textOn("#000000")).toBe("#ffffff");
    expect(textOn("#ffff00")).toBe("#111111");
    expect(textOn(DEFAULT_COLOR)).toBe("#ffffff");
  });

  it("shows https logos only", () => {
    expect(imageUrl("https://cdn.example/logo.png")).toBe("https://cdn.example/logo.png");
    expect(imageUrl("http://cdn.example/logo.png")).toBeNull();
    expect(imageUrl("data:image/svg+xml,<svg/>")).toBeNull();
    expect(imageUrl("javascript:alert(1)")).toBeNull();
    expect(imageUrl("not a url")).toBeNull();
  });

  it("falls back to the workspace name and a default greeting", () => {
    const branding = { name: " ", color: null, logoUrl: null, widgetGreeting: null };
    const look = lookOf({ token: "t", visitorId: "v", expiresAt: "", agentsOnline: true, workspace: { name: "Acme", branding } });
    expect(look).toMatchObject({ title: "Acme", greeting: DEFAULT_GREETING, logoUrl: null });
  });
});
