import { describe, expect, it } from "vitest";
import type { HeatmapCell } from "@/api/reports";
import {
  addDays,
  csatSummary,
  csvFileName,
  daysCovered,
  DEFAULT_FILTERS,
  durationTicks,
  fillDistribution,
  formatDuration,
  formatScore,
  hasRangeErrors,
  heatmapCellLabel,
  heatmapGrid,
  heatmapLevel,
  heatmapMax,
  heatmapQuery,
  heatmapSummary,
  hourLabel,
  isReportDay,
  isVolumeEmpty,
  periodLabel,
  periodTick,
  presetRange,
  rangeErrors,
  rangeText,
  type ReportFilters,
  reportFileName,
  reportQuery,
  reportQueryString,
  shareText,
  timeSummary,
  todayIn,
  volumeSummary,
} from "./reports";

const filters = (set: Partial<ReportFilters>): ReportFilters => ({ ...DEFAULT_FILTERS, ...set });

describe("days", () => {
  it("knows real calendar days only", () => {
    expect(isReportDay("2026-02-28")).toBe(true);
    expect(isReportDay("2028-02-29")).toBe(true);
    expect(isReportDay("2026-02-29")).toBe(false);
    expect(isReportDay("2026-13-01")).toBe(false);
    expect(isReportDay("0202-01-01")).toBe(false);
    expect(isReportDay("")).toBe(false);
    expect(isReportDay("2026-1-1")).toBe(false);
  });

  it("moves by calendar days across months, years and leap days", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-03-29", -29)).toBe("2026-02-28");
    expect(() => addDays("nope", 1)).toThrow();
  });

  it("counts the days a range covers, both ends included", () => {
    expect(daysCovered("2026-03-01", "2026-03-01")).toBe(1);
    expect(daysCovered("2026-01-01", "2026-12-31")).toBe(365);
    expect(daysCovered("2028-01-01", "2028-12-31")).toBe(366);
    expect(daysCovered("2026-03-02", "2026-03-01")).toBe(0);
    expect(daysCovered("x", "2026-03-01")).toBe(0);
  });

  it("tells today in the workspace's time zone", () => {
    const now = new Date("2026-03-10T23:30:00Z");
    expect(todayIn("UTC", now)).toBe("2026-03-10");
    expect(todayIn("Europe/Paris", now)).toBe("2026-03-11");
    expect(todayIn("America/Los_Angeles", now)).toBe("2026-03-10");
    expect(todayIn("Pacific/Kiritimati", new Date("2026-12-31T11:00:00Z"))).toBe("2027-01-01");
  });

  it("falls back to the browser's day for an unknown or missing zone", () => {
    const now = new Date(2026, 2, 10, 12, 0);
    expect(todayIn(null, now)).toBe("2026-03-10");
    expect(todayIn("Not/AZone", now)).toBe("2026-03-10");
  });
});

describe("presetRange", () => {
  it("ends each preset today", () => {
    expect(presetRange("last7", "2026-03-10")).toEqual({ from: "2026-03-04", to: "2026-03-10" });
    expect(presetRange("last30", "2026-03-10")).toEqual({ from: "2026-02-09", to: "2026-03-10" });
    expect(presetRange("last90", "2026-03-10")).toEqual({ from: "2025-12-11", to: "2026-03-10" });
    expect(presetRange("year", "2026-03-10")).toEqual({ from: "2026-01-01", to: "2026-03-10" });
  });

  it("makes ranges of the length their names say", () => {
    for (const [preset, days] of [
      ["last7", 7],
      ["last30", 30],
      ["last90", 90],
    ] as const) {
      const { from, to } = presetRange(preset, "2028-03-01");
      expect(daysCovered(from, to)).toBe(days);
    }
    expect(presetRange("year", "2026-01-01")).toEqual({ from: "2026-01-01", to: "2026-01-01" });
  });
});

describe("rangeErrors", () => {
  it("asks nothing of a preset", () => {
    expect(hasRangeErrors(rangeErrors(filters({ preset: "last7", from: "bad", to: "" })))).toBe(false);
  });

  it("wants both dates of a custom range", () => {
    expect(rangeErrors(filters({ preset: "custom", from: "", to: "2026-03-01" }))).toEqual({ from: ["Enter a start date."], to: [] });
    expect(rangeErrors(filters({ preset: "custom", from: "2026-03-01", to: "2026-02-30" }))).toEqual({ from: [], to: ["Enter an end date."] });
  });

  it("refuses a range that runs backwards, beside its end", () => {
    const errors = rangeErrors(filters({ preset: "custom", from: "2026-03-02", to: "2026-03-01" }));
    expect(errors).toEqual({ from: [], to: ["The end date is before the start date."] });
    expect(hasRangeErrors(errors)).toBe(true);
  });

  it("allows 366 days and no more", () => {
    expect(hasRangeErrors(rangeErrors(filters({ preset: "custom", from: "2028-01-01", to: "2028-12-31" })))).toBe(false);
    expect(rangeErrors(filters({ preset: "custom", from: "2026-01-01", to: "2027-01-02" })).to).toEqual(["A range covers at most 366 days."]);
  });
});

describe("reportQuery", () => {
  it("leaves the defaults to the API", () => {
    expect(reportQuery(DEFAULT_FILTERS, { isOwner: true })).toEqual({});
    expect(reportQueryString({})).toBe("");
  });

  it("sends what was chosen", () => {
    const query = reportQuery(
      filters({ preset: "last7", from: "2026-03-04", to: "2026-03-10", groupBy: "week", businessHours: true, agentId: "a-1", channel: "chat", labelId: "l-1" }),
      { isOwner: true },
    );
    expect(query).toEqual({ from: "2026-03-04", to: "2026-03-10", groupBy: "week", businessHours: true, agentId: "a-1", channel: "chat", labelId: "l-1" });
    expect(reportQueryString(query)).toBe("from=2026-03-04&to=2026-03-10&groupBy=week&businessHours=true&agentId=a-1&channel=chat&labelId=l-1");
  });

  it("never names an agent for an agent", () => {
    expect(reportQuery(filters({ agentId: "someone" }), { isOwner: false })).toEqual({});
  });

  it("writes the same question as the same string, whatever the order", () => {
    expect(reportQueryString({ channel: "email", from: "2026-01-01" })).toBe(reportQueryString({ from: "2026-01-01", channel: "email" }));
  });

  it("keeps only the range and the channel for the heatmap", () => {
    expect(heatmapQuery({ from: "2026-01-01", to: "2026-01-31", groupBy: "month", businessHours: true, agentId: "a", channel: "email", labelId: "l" })).toEqual({
      from: "2026-01-01",
      to: "2026-01-31",
      channel: "email",
    });
    expect(heatmapQuery({})).toEqual({});
  });
});

describe("formatDuration", () => {
  it("reads seconds, minutes, hours and days", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(59)).toBe("59 s");
    expect(formatDuration(60)).toBe("1 min");
    expect(formatDuration(240)).toBe("4 min");
    expect(formatDuration(3900)).toBe("1 h 5 min");
    expect(formatDuration(7200)).toBe("2 h");
    expect(formatDuration(86_400)).toBe("1 d");
    expect(formatDuration(2 * 86_400 + 3 * 3600 + 600)).toBe("2 d 3 h");
  });

  it("rounds to the smaller unit shown, carrying over", () => {
    expect(formatDuration(89)).toBe("1 min");
    expect(formatDuration(90)).toBe("2 min");
    expect(formatDuration(3590)).toBe("1 h");
    expect(formatDuration(86_399)).toBe("1 d");
    expect(formatDuration(90_000)).toBe("1 d 1 h");
  });

  it("has a dash for nothing", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(undefined)).toBe("—");
    expect(formatDuration(Number.NaN)).toBe("—");
  });
});

describe("durationTicks", () => {
  it("counts in round steps past the largest value", () => {
    expect(durationTicks(100)).toEqual([0, 30, 60, 90, 120]);
    expect(durationTicks(25 * 60)).toEqual([0, 300, 600, 900, 1200, 1500]);
    expect(durationTicks(2 * 3600 + 1)).toEqual([0, 1800, 3600, 5400, 7200, 9000]);
    expect(durationTicks(3 * 86_400)).toEqual([0, 86_400, 2 * 86_400, 3 * 86_400]);
  });

  it("reads short at every tick", () => {
    expect(durationTicks(5400).map(formatDuration)).toEqual(["0 s", "30 min", "1 h", "1 h 30 min"]);
  });

  it("has a step even for nothing or for very long durations", () => {
    expect(durationTicks(0)).toEqual([0, 15]);
    const long = durationTicks(400 * 86_400);
    expect(long.length).toBeLessThanOrEqual(6);
    expect(long.at(-1)).toBeGreaterThanOrEqual(400 * 86_400);
  });
});

describe("formatScore and shareText", () => {
  it("reads a share as a whole percentage", () => {
    expect(formatScore(0.824)).toBe("82%");
    expect(formatScore(1)).toBe("100%");
    expect(formatScore(0)).toBe("0%");
    expect(formatScore(null)).toBe("—");
    expect(shareText(1, 4)).toBe("25%");
    expect(shareText(0, 0)).toBe("—");
  });
});

describe("periods", () => {
  it("names a period in full by its grouping", () => {
    expect(periodLabel("2026-03-12", "day", "en-GB")).toBe("12 Mar 2026");
    expect(periodLabel("2026-03-09", "week", "en-GB")).toBe("Week of 9 Mar 2026");
    expect(periodLabel("2026-03-01", "month", "en-GB")).toBe("March 2026");
    expect(periodLabel("garbage", "day", "en-GB")).toBe("garbage");
  });

  it("names a period briefly on an axis", () => {
    expect(periodTick("2026-03-12", "day", "en-GB")).toBe("12 Mar");
    expect(periodTick("2026-03-01", "month", "en-GB")).toBe("Mar 2026");
  });

  it("says what range a report covers", () => {
    const range = { from: "2026-03-01", to: "2026-03-30", groupBy: "day" as const, businessHours: true, timeZone: "Europe/Paris" };
    expect(rangeText(range, "en-GB")).toBe("1 Mar 2026 – 30 Mar 2026 (Europe/Paris), business hours only");
    expect(rangeText({ ...range, businessHours: false }, "en-GB")).toBe("1 Mar 2026 – 30 Mar 2026 (Europe/Paris)");
  });
});

describe("summaries", () => {
  it("sums up the volume", () => {
    expect(isVolumeEmpty({ created: 0, resolved: 0, reopened: 0 })).toBe(true);
    expect(volumeSummary({ created: 0, resolved: 0, reopened: 0 })).toBe("No conversations in this range.");
    expect(volumeSummary({ created: 1, resolved: 0, reopened: 0 })).toBe("1 conversation created, 0 resolved, 0 reopened.");
    expect(volumeSummary({ created: 1320, resolved: 120, reopened: 4 })).toBe("1,320 conversations created, 120 resolved, 4 reopened.");
    expect(isVolumeEmpty({ created: 0, resolved: 1, reopened: 0 })).toBe(false);
  });

  it("sums up a time report", () => {
    const noun = { one: "first response", other: "first responses" };
    expect(timeSummary({ count: 132, median: 240, p90: 1500 }, noun)).toBe("Median 4 min, p90 25 min over 132 first responses.");
    expect(timeSummary({ count: 1, median: 30, p90: 30 }, noun)).toBe("Median 30 s, p90 30 s over 1 first response.");
    expect(timeSummary({ count: 0, median: null, p90: null }, noun)).toBe("No first responses in this range.");
  });

  it("sums up CSAT", () => {
    expect(csatSummary({ responses: 50, satisfied: 41, score: 0.82 })).toBe("82% satisfied: 41 of 50 ratings were 4 or 5.");
    expect(csatSummary({ responses: 1, satisfied: 1, score: 1 })).toBe("100% satisfied: 1 of 1 rating was 4 or 5.");
    expect(csatSummary({ responses: 0, satisfied: 0, score: null })).toBe("No ratings in this range.");
  });
});

describe("fillDistribution", () => {
  it("gives ratings 1 to 5 in order, 0 where missing", () => {
    expect(fillDistribution([{ rating: 5, count: 3 }, { rating: 2, count: 1 }])).toEqual([
      { rating: 1, count: 0 },
      { rating: 2, count: 1 },
      { rating: 3, count: 0 },
      { rating: 4, count: 0 },
      { rating: 5, count: 3 },
    ]);
    expect(fillDistribution([]).map((r) => r.count)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("the heatmap", () => {
  const cells: HeatmapCell[] = [
    { weekday: 1, hour: 9, messages: 12 },
    { weekday: 7, hour: 23, messages: 3 },
    { weekday: 8, hour: 0, messages: 99 },
    { weekday: 2, hour: 24, messages: 99 },
  ];

  it("fills seven days of 24 hours, Monday first, ignoring cells outside the week", () => {
    const grid = heatmapGrid(cells);
    expect(grid).toHaveLength(7);
    expect(grid.every((row) => row.length === 24)).toBe(true);
    expect(grid[0]?.[9]).toBe(12);
    expect(grid[6]?.[23]).toBe(3);
    expect(grid.flat().reduce((a, b) => a + b, 0)).toBe(15);
    expect(heatmapMax(grid)).toBe(12);
    expect(heatmapMax(heatmapGrid([]))).toBe(0);
  });

  it("shades by share of the busiest hour, none only for no messages", () => {
    expect(heatmapLevel(0, 12)).toBe(0);
    expect(heatmapLevel(1, 100)).toBe(1);
    expect(heatmapLevel(25, 100)).toBe(1);
    expect(heatmapLevel(26, 100)).toBe(2);
    expect(heatmapLevel(75, 100)).toBe(3);
    expect(heatmapLevel(100, 100)).toBe(4);
    expect(heatmapLevel(5, 0)).toBe(0);
  });

  it("labels each cell with its day, hour and count", () => {
    expect(hourLabel(9)).toBe("09:00");
    expect(heatmapCellLabel(1, 9, 12)).toBe("Monday 09:00–10:00: 12 incoming messages");
    expect(heatmapCellLabel(7, 23, 1)).toBe("Sunday 23:00–24:00: 1 incoming message");
  });

  it("sums the week up", () => {
    expect(heatmapSummary(heatmapGrid(cells))).toBe("15 incoming messages; the busiest hour was Monday 09:00–10:00 with 12.");
    expect(heatmapSummary(heatmapGrid([]))).toBe("No incoming messages in this range.");
  });
});

describe("CSV file names", () => {
  it("names a report's file as the API does", () => {
    expect(reportFileName("volume", { from: "2026-03-01", to: "2026-03-30" })).toBe("volume-2026-03-01-2026-03-30.csv");
    expect(reportFileName("csat", null)).toBe("csat.csv");
  });

  it("takes the Content-Disposition's name when the browser can read it", () => {
    expect(csvFileName('attachment; filename="volume-2026-03-01-2026-03-30.csv"', "x.csv")).toBe("volume-2026-03-01-2026-03-30.csv");
    expect(csvFileName("attachment; filename=../../etc/agents.csv", "x.csv")).toBe("agents.csv");
    expect(csvFileName('attachment; filename="evil.exe"', "x.csv")).toBe("x.csv");
    expect(csvFileName(null, "heatmap-2026-01-01-2026-01-31.csv")).toBe("heatmap-2026-01-01-2026-01-31.csv");
  });
});
