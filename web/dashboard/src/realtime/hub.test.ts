import { HttpError } from "@microsoft/signalr";
import { describe, expect, it } from "vitest";
import { closeReason, hubRetryDelay } from "./hub";

describe("hub reconnects", () => {
  it("back off to 30 s and keep trying", () => {
    expect(hubRetryDelay(0, new Error("socket closed"))).toBe(0);
    expect(hubRetryDelay(3, undefined)).toBe(5000);
    expect(hubRetryDelay(50, undefined)).toBe(30_000);
  });

  it("stop when negotiate refuses the credential", () => {
    expect(hubRetryDelay(1, new HttpError("Forbidden", 403))).toBeNull();
    expect(hubRetryDelay(1, new HttpError("Unauthorized", 401))).toBeNull();
    expect(hubRetryDelay(1, new HttpError("Unavailable", 503))).toBe(1000);
  });

  it("keep the server's reason for closing", () => {
    expect(closeReason(new Error("Server returned an error on close: Connection closed with an error. your access to this workspace has been deactivated"))).toBe(
      "your access to this workspace has been deactivated",
    );
    expect(closeReason(undefined)).toBeNull();
  });
});
