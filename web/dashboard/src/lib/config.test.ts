import { DEFAULT_API_URL } from "@supportdesk/shared/config";
import { describe, expect, it, vi } from "vitest";
import { configFrom, DEFAULT_WIDGET_URL } from "./config";

// How the API and hub addresses are read is tested with them, in @supportdesk/shared.
describe("the dashboard's runtime config", () => {
  it("defaults to the local API, its hub and the local widget", () => {
    expect(configFrom({})).toEqual({
      apiUrl: DEFAULT_API_URL,
      hubUrl: `${DEFAULT_API_URL}/hubs/chat`,
      widgetUrl: DEFAULT_WIDGET_URL,
    });
  });

  it("takes an explicit widget address, and ignores an unusable one", () => {
    const env = { NEXT_PUBLIC_API_URL: "https://api.example.com", NEXT_PUBLIC_WIDGET_URL: "https://widget.example.com/" };
    expect(configFrom(env)).toEqual({
      apiUrl: "https://api.example.com",
      hubUrl: "https://api.example.com/hubs/chat",
      widgetUrl: "https://widget.example.com",
    });
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(configFrom({ ...env, NEXT_PUBLIC_WIDGET_URL: "nonsense" }).widgetUrl).toBe(DEFAULT_WIDGET_URL);
    error.mockRestore();
  });
});
