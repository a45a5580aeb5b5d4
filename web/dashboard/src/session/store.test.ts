import { describe, expect, it } from "vitest";
import { EMPTY_SESSION, parseSession } from "./store";

const workspace = { id: "w1", name: "Acme", slug: "acme", role: "admin", token: "t", expiresAt: "2026-11-23T11:00:00Z" };

describe("stored session", () => {
  it("reads what was stored", () => {
    const raw = JSON.stringify({ userToken: "u", workspace, notice: null });
    expect(parseSession(raw)).toEqual({ userToken: "u", workspace, notice: null });
  });

  it("drops malformed parts instead of trusting them", () => {
    expect(parseSession(null)).toBe(EMPTY_SESSION);
    expect(parseSession("{not json")).toBe(EMPTY_SESSION);
    expect(parseSession(JSON.stringify({ userToken: "u", workspace: { ...workspace, role: "root" } })).workspace).toBeNull();
    // A workspace token without the user token that obtained it is not kept.
    expect(parseSession(JSON.stringify({ workspace })).workspace).toBeNull();
    expect(parseSession(JSON.stringify({ notice: "Access ended" })).notice).toBe("Access ended");
  });
});
