import { describe, expect, it } from "vitest";
import { apiConfigFrom } from "./config";
import { connectSrc, devEval, filesOrigin, newNonce } from "./csp";

describe("CSP pieces", () => {
  it("let pages talk to this server, the API and the hub (HTTP and WebSocket)", () => {
    expect(connectSrc(apiConfigFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/base" }))).toBe(
      "connect-src 'self' https://api.example.com wss://api.example.com",
    );
  });

  it("name a separate plain-http hub as ws:", () => {
    const config = apiConfigFrom({ NEXT_PUBLIC_API_URL: "http://127.0.0.1:5000", NEXT_PUBLIC_SIGNALR_URL: "ws://rt:8080/hubs/chat" });
    expect(connectSrc(config)).toBe("connect-src 'self' http://127.0.0.1:5000 http://rt:8080 ws://rt:8080");
  });

  it("name the API's origin for its file links", () => {
    expect(filesOrigin(apiConfigFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/base" }))).toBe("https://api.example.com");
    expect(filesOrigin(apiConfigFrom({ NEXT_PUBLIC_API_URL: "http://127.0.0.1:5000" }))).toBe("http://127.0.0.1:5000");
  });

  it("allow eval in development only", () => {
    expect(devEval(true)).toBe(" 'unsafe-eval'");
    expect(devEval(false)).toBe("");
  });

  it("draw a fresh 128-bit nonce each time", () => {
    const [a, b] = [newNonce(), newNonce()];
    expect(a).not.toBe(b);
    expect(atob(a)).toHaveLength(16);
  });
});
