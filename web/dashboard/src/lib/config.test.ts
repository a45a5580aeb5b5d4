import { describe, expect, it } from "vitest";
import { configFrom, DEFAULT_API_URL, DEFAULT_WIDGET_URL } from "./config";

describe("runtime config", () => {
  it("defaults to the local API, its hub and the local widget", () => {
    expect(configFrom({})).toEqual({
      apiUrl: DEFAULT_API_URL,
      hubUrl: `${DEFAULT_API_URL}/hubs/chat`,
      widgetUrl: DEFAULT_WIDGET_URL,
    });
  });

  it("derives the hub from the API address, without trailing slashes", () => {
    const config = configFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/ " });
    expect(config.apiUrl).toBe("https://api.example.com");
    expect(config.hubUrl).toBe("https://api.example.com/hubs/chat");
  });

  it("takes explicit hub and widget addresses, and ignores unusable ones", () => {
    const env = {
      NEXT_PUBLIC_API_URL: "https://api.example.com",
      NEXT_PUBLIC_SIGNALR_URL: "wss://rt.example.com/hubs/chat",
      NEXT_PUBLIC_WIDGET_URL: "https://widget.example.com/",
    };
    expect(configFrom(env).hubUrl).toBe("https://rt.example.com/hubs/chat");
    expect(configFrom(env).widgetUrl).toBe("https://widget.example.com");
    expect(configFrom({ ...env, NEXT_PUBLIC_SIGNALR_URL: "ftp://x" }).hubUrl).toBe("https://api.example.com/hubs/chat");
    expect(configFrom({ ...env, NEXT_PUBLIC_WIDGET_URL: "nonsense" }).widgetUrl).toBe(DEFAULT_WIDGET_URL);
  });
});
