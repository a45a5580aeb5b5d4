import { describe, expect, it, vi } from "vitest";
import { apiConfigFrom, DEFAULT_API_URL, httpUrl, publicUrl } from "./config";

describe("runtime config", () => {
  it("defaults to the local API and its hub", () => {
    expect(apiConfigFrom({})).toEqual({ apiUrl: DEFAULT_API_URL, hubUrl: `${DEFAULT_API_URL}/hubs/chat` });
  });

  it("derives the hub from the API address, without trailing slashes", () => {
    expect(apiConfigFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/ " })).toEqual({
      apiUrl: "https://api.example.com",
      hubUrl: "https://api.example.com/hubs/chat",
    });
  });

  it("takes an explicit hub address, a WebSocket one as its HTTP twin, and ignores unusable ones", () => {
    const env = { NEXT_PUBLIC_API_URL: "https://api.example.com", NEXT_PUBLIC_SIGNALR_URL: "wss://rt.example.com/hubs/chat" };
    // The client negotiates over HTTP first: a WebSocket address is taken as its HTTP twin.
    expect(apiConfigFrom(env).hubUrl).toBe("https://rt.example.com/hubs/chat");
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(apiConfigFrom({ ...env, NEXT_PUBLIC_SIGNALR_URL: "ftp://x" }).hubUrl).toBe("https://api.example.com/hubs/chat");
    expect(error).toHaveBeenCalledWith(expect.stringContaining("NEXT_PUBLIC_SIGNALR_URL"));
    error.mockRestore();
  });

  it("reads any NEXT_PUBLIC_ address the same way", () => {
    expect(publicUrl({ NEXT_PUBLIC_WIDGET_URL: "https://widget.example.com/" }, "WIDGET_URL", "x")).toBe("https://widget.example.com");
    expect(publicUrl({}, "WIDGET_URL", "http://localhost:3001")).toBe("http://localhost:3001");
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(httpUrl("X", "nonsense", "http://fallback")).toBe("http://fallback");
    error.mockRestore();
  });
});
