import { describe, expect, it } from "vitest";
import { configFrom, DEFAULT_API_URL } from "./config";
import { parseRetryAfter } from "./problem";

describe("runtime config", () => {
  it("defaults to the local API and its hub", () => {
    expect(configFrom({})).toEqual({ apiUrl: DEFAULT_API_URL, hubUrl: `${DEFAULT_API_URL}/hubs/chat` });
  });

  it("derives the hub from the API address, without trailing slashes", () => {
    expect(configFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/ " })).toEqual({
      apiUrl: "https://api.example.com",
      hubUrl: "https://api.example.com/hubs/chat",
    });
  });

  it("takes an explicit hub address", () => {
    const env = { NEXT_PUBLIC_API_URL: "https://api.example.com", NEXT_PUBLIC_SIGNALR_URL: "wss://x/hubs/chat" };
    // The client negotiates over HTTP first: a WebSocket address is taken as its HTTP twin.
    expect(configFrom(env).hubUrl).toBe("https://x/hubs/chat");
    expect(configFrom({ ...env, NEXT_PUBLIC_SIGNALR_URL: "ftp://x" }).hubUrl).toBe("https://api.example.com/hubs/chat");
    expect(configFrom({ ...env, NEXT_PUBLIC_SIGNALR_URL: "https://rt.example.com/hubs/chat" }).hubUrl).toBe(
      "https://rt.example.com/hubs/chat",
    );
  });
});

describe("Retry-After", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("30")).toBe(30);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:01:00 GMT", now)).toBe(60);
  });
});
