import { afterEach, describe, expect, it } from "vitest";
import { dayBefore, dayEnd, dayOf, dayStart, isDay } from "./localDay";

// The conversions follow the runtime's time zone; each test names the zone it reads days in.
const zone = process.env.TZ;
function inZone(tz: string) {
  process.env.TZ = tz;
}
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe("isDay", () => {
  it("takes a date input's days", () => {
    expect(isDay("2026-11-28")).toBe(true);
    expect(isDay("2028-02-29")).toBe(true);
  });
  it("refuses what is not a real day with a four-digit year", () => {
    for (const bad of ["", "2026-02-31", "2027-02-29", "2026-13-01", "2026-1-01", "12/03/2026", "2026-11-28T00:00", "0002-11-01", "9999-12-31", "+02026-11-28"]) {
      expect(isDay(bad), bad).toBe(false);
    }
    expect(isDay(null)).toBe(false);
  });
});

describe("a day's start and end in the agent's time zone", () => {
  it("start at local midnight and end at the next day's", () => {
    inZone("Asia/Kolkata");
    expect(dayStart("2026-11-28")).toBe("2026-11-27T18:30:00.000Z");
    expect(dayEnd("2026-11-28")).toBe("2026-11-28T18:30:00.000Z");
    expect(dayEnd("2026-12-31")).toBe("2026-12-31T18:30:00.000Z");
  });
  it("follow the calendar across summer time: a 25-hour and a 23-hour day", () => {
    inZone("America/New_York");
    expect(dayStart("2026-11-01")).toBe("2026-11-01T04:00:00.000Z");
    expect(dayEnd("2026-11-01")).toBe("2026-11-02T05:00:00.000Z");
    expect(dayStart("2026-03-08")).toBe("2026-03-08T05:00:00.000Z");
    expect(dayEnd("2026-03-08")).toBe("2026-03-09T04:00:00.000Z");
    expect(dayEnd("2026-12-31")).toBe("2027-01-01T05:00:00.000Z");
  });
  it("are null for what is not a day", () => {
    expect(dayStart("2026-02-31")).toBeNull();
    expect(dayEnd("tomorrow")).toBeNull();
  });
});

describe("the day an instant falls in", () => {
  it("reads a range's start as its day and its exclusive end as the day before it", () => {
    inZone("Asia/Kolkata");
    expect(dayOf("2026-11-27T18:30:00Z")).toBe("2026-11-28");
    expect(dayOf("2026-11-27T18:29:59.999Z")).toBe("2026-11-27");
    expect(dayBefore("2026-11-28T18:30:00.000Z")).toBe("2026-11-28");
    // Not a midnight: the day it falls in.
    expect(dayBefore("2026-11-28T20:00:00+00:00")).toBe("2026-11-29");
    expect(dayOf("2026-11-28T09:15:00+05:30")).toBe("2026-11-28");
  });
  it("comes back to the day it was made from", () => {
    inZone("America/New_York");
    for (const day of ["2026-03-08", "2026-11-01", "2026-12-31", "2028-02-29"]) {
      expect(dayOf(dayStart(day)!)).toBe(day);
      expect(dayBefore(dayEnd(day)!)).toBe(day);
    }
  });
  it("is null for what is not an instant, or out of the years a day has", () => {
    expect(dayOf("not a time")).toBeNull();
    expect(dayBefore("")).toBeNull();
    expect(dayOf("0001-06-01T00:00:00Z")).toBeNull();
  });
});
