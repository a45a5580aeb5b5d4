import { describe, expect, it } from "vitest";
import { currentNotice } from "./notices";

const REGISTERED = "Welcome, Ann Lee. We sent a verification link to ann@example.com.";

describe("currentNotice", () => {
  it("keeps the verification sentence until the address is verified", () => {
    expect(currentNotice(REGISTERED, false)).toBe(REGISTERED);
    expect(currentNotice(REGISTERED, undefined)).toBe(REGISTERED);
  });
  it("drops it once verified, keeping the rest", () => {
    expect(currentNotice(REGISTERED, true)).toBe("Welcome, Ann Lee.");
  });
  it("drops a notice that said nothing else", () => {
    expect(currentNotice("We sent a verification link to a.b@example.co.uk.", true)).toBeNull();
  });
  it("leaves other notices alone", () => {
    expect(currentNotice("Your access to Acme ended.", true)).toBe("Your access to Acme ended.");
    expect(currentNotice(null, true)).toBeNull();
  });
});
