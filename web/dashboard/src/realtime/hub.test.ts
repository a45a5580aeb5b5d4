import { HttpError } from "@microsoft/signalr";
import { describe, expect, it } from "vitest";
import { agentRetryDelay } from "./hub";

describe("the agent's hub reconnects", () => {
  it("back off to 30 s and keep trying", () => {
    expect(agentRetryDelay(0, new Error("socket closed"))).toBe(0);
    expect(agentRetryDelay(3, undefined)).toBe(5000);
    expect(agentRetryDelay(50, undefined)).toBe(30_000);
  });

  it("stop when negotiate refuses the credential, as the client reports it or wraps it", () => {
    expect(agentRetryDelay(1, new HttpError("Forbidden", 403))).toBeNull();
    expect(agentRetryDelay(1, new HttpError("Unauthorized", 401))).toBeNull();
    expect(agentRetryDelay(1, new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'"))).toBeNull();
    expect(agentRetryDelay(1, new HttpError("Unavailable", 503))).toBe(1000);
  });
});
