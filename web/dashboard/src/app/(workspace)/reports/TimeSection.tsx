"use client";

// First response time and resolution time: per period, the median and the 90th percentile
// (p90) of the durations counted in it, as a line chart with its table.

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ReportQuery, TimePeriod, TimeReport } from "@/api/reports";
import { durationTicks, formatDuration, periodLabel, periodTick, timeSummary } from "@/lib/reports";
import { ChartFrame } from "./ChartFrame";
import { AXIS_TICK, GRID_STROKE, SERIES, showDots } from "./chartStyle";
import { type Column, FigureTable, TableDetails } from "./FigureTable";
import { ReportSection } from "./ReportSection";
import styles from "./reports.module.css";
import { useReport } from "./useReport";

interface TimeMetric {
  metric: "first-response-time" | "resolution-time";
  title: string;
  definition: string;
  /** What one counted duration is called: "first response", "resolution". */
  noun: { one: string; other: string };
  /** The count column's header. */
  countHeader: string;
}

export const FIRST_RESPONSE: TimeMetric = {
  metric: "first-response-time",
  title: "First response time",
  definition:
    "From the first incoming message of a conversation, or of a reopening, to the first reply an agent wrote after it. Notes and replies no agent wrote (API keys) don't count. Credited to the agent who replied, in the period of the reply.",
  noun: { one: "first response", other: "first responses" },
  countHeader: "First responses",
};

export const RESOLUTION: TimeMetric = {
  metric: "resolution-time",
  title: "Resolution time",
  definition:
    "From a conversation's creation, or its reopening, to its resolution; each resolution counts. Credited to the assignee at resolution, in the period of the resolution.",
  noun: { one: "resolution", other: "resolutions" },
  countHeader: "Resolutions",
};

/** A y-axis tick: durations in their own units. */
const durationTick = (value: number) => formatDuration(value);

export function TimeSection({ kind, query, enabled }: { kind: TimeMetric; query: ReportQuery; enabled: boolean }) {
  const result = useReport(kind.metric, query, enabled);
  return (
    <ReportSection metric={kind.metric} title={kind.title} definition={kind.definition} query={query} enabled={enabled} result={result}>
      {(report) => <TimeFigures kind={kind} report={report} />}
    </ReportSection>
  );
}

function TimeFigures({ kind, report }: { kind: TimeMetric; report: TimeReport }) {
  const summary = timeSummary(report.total, kind.noun);
  if (report.total.count === 0) return <p className={styles.summary}>{summary}</p>;
  const groupBy = report.range.groupBy;
  const data = report.series.map((p) => ({ ...p, tick: periodTick(p.period, groupBy) }));
  const columns: Column<TimePeriod>[] = [
    { header: "Period", cell: (p) => periodLabel(p.period, groupBy) },
    { header: kind.countHeader, cell: (p) => p.count.toLocaleString("en-US"), numeric: true },
    { header: "Median", cell: (p) => formatDuration(p.median), numeric: true },
    { header: "p90", cell: (p) => formatDuration(p.p90), numeric: true },
  ];
  const ticks = durationTicks(Math.max(0, ...report.series.map((p) => p.p90 ?? p.median ?? 0)));
  const caption = `${kind.title}: ${kind.noun.other}, median and p90 per ${groupBy}`;
  return (
    <>
      <p className={styles.summary}>{summary}</p>
      <ChartFrame>
        <LineChart data={data} accessibilityLayer={false} role="img" title={`${kind.title} chart. ${summary}`} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" />
          <XAxis dataKey="tick" tick={AXIS_TICK} minTickGap={16} />
          <YAxis tick={AXIS_TICK} ticks={ticks} domain={[0, ticks.at(-1) ?? 0]} tickFormatter={durationTick} width={92} />
          <Tooltip formatter={(value) => (typeof value === "number" ? formatDuration(value) : String(value ?? ""))} />
          <Legend itemSorter={null} />
          <Line type="linear" dataKey="median" name="Median" stroke={SERIES.median.color} strokeWidth={2} dot={showDots(data.length)} isAnimationActive={false} />
          <Line
            type="linear"
            dataKey="p90"
            name="p90"
            stroke={SERIES.p90.color}
            strokeDasharray={SERIES.p90.dash}
            strokeWidth={2}
            dot={showDots(data.length)}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartFrame>
      <TableDetails caption={caption}>
        <FigureTable
          caption={caption}
          columns={columns}
          rows={report.series}
          rowKey={(p) => p.period}
          total={["Total", report.total.count.toLocaleString("en-US"), formatDuration(report.total.median), formatDuration(report.total.p90)]}
        />
      </TableDetails>
    </>
  );
}
