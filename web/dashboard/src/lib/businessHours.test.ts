import { describe, expect, it } from "vitest";
import type { BusinessHours, Weekday } from "@/api/types";
import { addHoliday, hasProblems, type HoursForm, type TimeRange, timeZoneOptions, toDocument, toForm, validateForm, WEEKDAYS } from "./businessHours";

const ALWAYS_OPEN: BusinessHours = {
  timeZone: "UTC",
  weekly: WEEKDAYS.map((day) => ({ day, open: "00:00", close: "24:00" })),
  holidays: [],
};

const OFFICE: BusinessHours = {
  timeZone: "Europe/Berlin",
  weekly: [
    { day: "mon", open: "09:00", close: "12:00" },
    { day: "mon", open: "13:00", close: "17:00" },
    { day: "tue", open: "09:00", close: "17:00" },
    { day: "sat", open: "20:00", close: "24:00" },
  ],
  holidays: ["2026-12-25", "2026-12-26"],
};

/** The form of `OFFICE` with `day`'s hours replaced. */
function officeWith(day: Weekday, ranges: TimeRange[]): HoursForm {
  const form = toForm(OFFICE);
  return { ...form, days: form.days.map((d) => (d.day === day ? { ...d, open: true, ranges } : d)) };
}

describe("business hours form", () => {
  it("has every weekday, Monday first, with a closed day ready at 09:00–17:00", () => {
    const form = toForm(OFFICE);
    expect(form.days.map((d) => d.day)).toEqual(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);
    expect(form.days.map((d) => d.open)).toEqual([true, true, false, false, false, true, false]);
    expect(form.days[2]?.ranges).toEqual([{ opens: "09:00", closes: "17:00" }]);
  });

  it("keeps every opening of a day, in time order", () => {
    const form = toForm({
      ...OFFICE,
      weekly: [
        { day: "mon", open: "13:00", close: "17:00" },
        { day: "mon", open: "09:00", close: "12:00" },
      ],
    });
    expect(form.days[0]?.ranges).toEqual([
      { opens: "09:00", closes: "12:00" },
      { opens: "13:00", closes: "17:00" },
    ]);
  });

  it("shows a closing time of 24:00 as 00:00 and saves 00:00 as 24:00", () => {
    const form = toForm(ALWAYS_OPEN);
    expect(form.days.every((d) => d.open && d.ranges[0]?.opens === "00:00" && d.ranges[0]?.closes === "00:00")).toBe(true);
    expect(toDocument(form)).toEqual(ALWAYS_OPEN);
    expect(toDocument(officeWith("sun", [{ opens: "22:00", closes: "00:00" }])).weekly).toContainEqual({ day: "sun", open: "22:00", close: "24:00" });
  });

  it("round-trips the API's document", () => {
    expect(toDocument(toForm(OFFICE))).toEqual(OFFICE);
    expect(toDocument(toForm(ALWAYS_OPEN))).toEqual(ALWAYS_OPEN);
  });

  it("saves days in week order and openings by time, holidays in order", () => {
    const form = officeWith("mon", [
      { opens: "13:00", closes: "17:00" },
      { opens: "08:00", closes: "12:00" },
    ]);
    const reordered = { ...form, days: [...form.days].reverse(), holidays: ["2027-01-01", "2026-12-25", "2026-12-25"] };
    const document = toDocument(reordered);
    expect(document.weekly.map((o) => `${o.day} ${o.open}`)).toEqual(["mon 08:00", "mon 13:00", "tue 09:00", "sat 20:00"]);
    expect(document.holidays).toEqual(["2026-12-25", "2027-01-01"]);
  });

  it("leaves out a day whose Open box is not ticked, though it keeps its hours", () => {
    const form = toForm(OFFICE);
    const closedMonday = { ...form, days: form.days.map((d) => (d.day === "mon" ? { ...d, open: false } : d)) };
    expect(toDocument(closedMonday).weekly.some((o) => o.day === "mon")).toBe(false);
    expect(closedMonday.days[0]?.ranges).toHaveLength(2);
  });
});

describe("business hours problems", () => {
  it("none for valid hours, back-to-back openings or a day open until midnight", () => {
    expect(validateForm(toForm(ALWAYS_OPEN))).toEqual({});
    const backToBack = officeWith("wed", [
      { opens: "09:00", closes: "12:00" },
      { opens: "12:00", closes: "00:00" },
    ]);
    expect(hasProblems(validateForm(backToBack))).toBe(false);
  });

  it("a closing time must come after the opening time", () => {
    expect(validateForm(officeWith("wed", [{ opens: "17:00", closes: "09:00" }]))).toEqual({
      wed: ["Wednesday: closes at 09:00, before it opens at 17:00. Hours past midnight go on the next day."],
    });
    expect(validateForm(officeWith("wed", [{ opens: "09:00", closes: "09:00" }])).wed).toHaveLength(1);
  });

  it("times must be filled in", () => {
    expect(validateForm(officeWith("thu", [{ opens: "", closes: "" }]))).toEqual({
      thu: ["Thursday: enter an opening time.", "Thursday: enter a closing time."],
    });
  });

  it("openings of a day must not overlap", () => {
    const form = officeWith("fri", [
      { opens: "13:00", closes: "00:00" },
      { opens: "09:00", closes: "14:00" },
    ]);
    expect(validateForm(form)).toEqual({ fri: ["Friday: 09:00–14:00 and 13:00–midnight overlap."] });
  });

  it("closed days are not checked", () => {
    const form = officeWith("wed", [{ opens: "17:00", closes: "09:00" }]);
    const closed = { ...form, days: form.days.map((d) => (d.day === "wed" ? { ...d, open: false } : d)) };
    expect(hasProblems(validateForm(closed))).toBe(false);
  });
});

describe("holidays", () => {
  it("are added in order, once each", () => {
    expect(addHoliday(["2026-12-25"], "2026-01-01")).toEqual({ holidays: ["2026-01-01", "2026-12-25"] });
    expect(addHoliday(["2026-12-25"], "2026-12-25")).toEqual({ error: "2026-12-25 is already a holiday." });
  });

  it("need a date", () => {
    expect(addHoliday([], "")).toEqual({ error: "Choose a date to add." });
  });
});

describe("time zone options", () => {
  it("start with UTC, then the browser's zones in order, with the stored zone kept", () => {
    expect(timeZoneOptions(["Europe/Berlin", "America/New_York"], "UTC")).toEqual(["UTC", "America/New_York", "Europe/Berlin"]);
    expect(timeZoneOptions(["Europe/Berlin", "UTC"], "Asia/Calcutta")).toEqual(["UTC", "Asia/Calcutta", "Europe/Berlin"]);
  });
});
