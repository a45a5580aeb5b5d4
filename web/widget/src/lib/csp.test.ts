import { describe, expect, it } from "vitest";
import { apiConfigFrom as configFrom } from "@supportdesk/shared/config";
import { chatCsp } from "./csp";

describe("the chat page's CSP", () => {
  it("allows the API and the hub (HTTP and WebSocket), https images and the API's files, scripts by nonce only, and no framing rule", () => {
    const csp = chatCsp(configFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/base" }), "n0nce");
    expect(csp).toBe(
      "default-src 'self'; img-src 'self' https: data: https://api.example.com; " +
        "connect-src 'self' https://api.example.com wss://api.example.com; " +
        "style-src 'self' 'unsafe-inline'; script-src 'self' 'nonce-n0nce' 'strict-dynamic'; " +
        "object-src 'none'; base-uri 'self'; form-action 'self'",
    );
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain("frame-ancestors");
  });

  it("names a separate plain-http hub as ws:, and allows eval in development only", () => {
    const config = configFrom({ NEXT_PUBLIC_API_URL: "http://127.0.0.1:5000", NEXT_PUBLIC_SIGNALR_URL: "ws://rt:8080/hubs/chat" });
    const csp = chatCsp(config, "n0nce", true);
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:5000 http://rt:8080 ws://rt:8080;");
    expect(csp).toContain("script-src 'self' 'nonce-n0nce' 'strict-dynamic' 'unsafe-eval'");
  });
});
