import { HttpError } from "@microsoft/signalr";
import { describe, expect, it } from "vitest";
import { isUnauthorized, visitorRetryDelay } from "./hub";

describe("the visitor's hub reconnects", () => {
  it("knows a refused token from other failures", () => {
    expect(isUnauthorized(new HttpError("Unauthorized", 401))).toBe(true);
    expect(isUnauthorized(new HttpError("Forbidden", 403))).toBe(false);
    // What negotiate really rejects with: its own error, around the HttpError's text.
    expect(
      isUnauthorized(new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'")),
    ).toBe(true);
    expect(isUnauthorized(new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '403'"))).toBe(
      false,
    );
    expect(isUnauthorized(new Error("Server returned an error on close: the token expired; reconnect with a new one"))).toBe(
      true,
    );
    expect(isUnauthorized(new Error("WebSocket closed with status code: 1006 ()."))).toBe(false);
    expect(isUnauthorized(undefined)).toBe(false);
  });

  it("asks for a token on every attempt refused with 401, and keeps backing off", () => {
    let asked = 0;
    const delay = visitorRetryDelay(() => asked++);
    const refused = new HttpError("Unauthorized", 401);
    expect([0, 1, 2].map((previousRetryCount) => delay(previousRetryCount, refused))).toEqual([0, 1000, 2000]);
    expect(asked).toBe(3);
    expect(delay(3, new Error("offline"))).toBe(5000);
    expect(asked).toBe(3);
  });
});
