import { describe, expect, it } from "vitest";
import { fullTime, localTimeIn, relativeTime } from "./time";

const now = Date.parse("2026-11-26T12:00:00Z");

describe("relativeTime", () => {
  it("says now under a minute, minutes under an hour, hours under a day", () => {
    expect(relativeTime("2026-11-26T11:59:30Z", now)).toBe("now");
    expect(relativeTime("2026-11-26T11:55:00Z", now)).toBe("5m");
    expect(relativeTime("2026-11-26T09:00:00Z", now)).toBe("3h");
  });
  it("names the weekday within a week and the date beyond", () => {
    expect(relativeTime("2026-11-24T12:00:00Z", now, "en-GB")).toBe("Tue");
    expect(relativeTime("2026-03-12T12:00:00Z", now, "en-GB")).toBe("12 Mar");
    expect(relativeTime("2025-03-12T12:00:00Z", now, "en-GB")).toBe("12 Mar 2025");
  });
  it("treats a time from the future (clock skew) as now, and garbage as nothing", () => {
    expect(relativeTime("2026-11-26T12:00:05Z", now)).toBe("now");
    expect(relativeTime("not a date", now)).toBe("");
  });
});

describe("fullTime", () => {
  it("writes the whole date", () => {
    expect(fullTime("2026-11-26T12:00:00Z", "en-GB")).toContain("2026");
    expect(fullTime("x")).toBe("");
  });
});

describe("localTimeIn", () => {
  it("shows the time in the person's zone", () => {
    expect(localTimeIn("Asia/Tokyo", now, "en-GB")).toBe("21:00");
    expect(localTimeIn("Europe/Lisbon", now, "en-GB")).toBe("12:00");
  });
  it("is null for an unknown zone", () => {
    expect(localTimeIn("Mars/Olympus", now)).toBeNull();
  });
});
