import { describe, expect, it } from "vitest";
import { configFrom } from "./config";
import { dashboardCsp } from "./csp";

describe("the dashboard's CSP", () => {
  it("runs scripts by nonce only, talks to the API and the hub, and may not be framed", () => {
    const csp = dashboardCsp(configFrom({ NEXT_PUBLIC_API_URL: "https://api.example.com/base" }), "abc");
    expect(csp).toBe(
      "default-src 'self'; script-src 'self' 'nonce-abc' 'strict-dynamic'; " +
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: https://api.example.com https: http:; " +
        "connect-src 'self' https://api.example.com wss://api.example.com; " +
        "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(csp).not.toContain("unsafe-eval");
  });

  it("names a separate plain-http hub as ws:, and allows eval in development only", () => {
    const config = configFrom({ NEXT_PUBLIC_API_URL: "http://127.0.0.1:5000", NEXT_PUBLIC_SIGNALR_URL: "ws://rt:8080/hubs/chat" });
    const csp = dashboardCsp(config, "n", true);
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:5000 http://rt:8080 ws://rt:8080;");
    expect(csp).toContain("script-src 'self' 'nonce-n' 'strict-dynamic' 'unsafe-eval';");
  });
});
