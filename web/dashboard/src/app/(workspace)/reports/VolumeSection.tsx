"use client";

// Volume: conversations created, resolved and reopened in each period, as a line chart with
// its table.

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ReportQuery, VolumePeriod, VolumeReport } from "@/api/reports";
import { isVolumeEmpty, periodLabel, periodTick, volumeSummary } from "@/lib/reports";
import { ChartFrame } from "./ChartFrame";
import { AXIS_TICK, GRID_STROKE, SERIES, showDots } from "./chartStyle";
import { type Column, FigureTable, TableDetails } from "./FigureTable";
import { ReportSection } from "./ReportSection";
import styles from "./reports.module.css";
import { useReport } from "./useReport";

const LINES = [
  { key: "created", name: "Created", style: SERIES.created },
  { key: "resolved", name: "Resolved", style: SERIES.resolved },
  { key: "reopened", name: "Reopened", style: SERIES.reopened },
] as const;

export function VolumeSection({ query, enabled }: { query: ReportQuery; enabled: boolean }) {
  const result = useReport("volume", query, enabled);
  return (
    <ReportSection
      metric="volume"
      title="Volume"
      definition="Conversations created, resolved and reopened in each period. Reopened: a resolved conversation set open again, by an agent or by the customer writing within 7 days."
      query={query}
      enabled={enabled}
      result={result}
    >
      {(report) => <VolumeFigures report={report} />}
    </ReportSection>
  );
}

function VolumeFigures({ report }: { report: VolumeReport }) {
  const summary = volumeSummary(report.total);
  if (isVolumeEmpty(report.total)) return <p className={styles.summary}>{summary}</p>;
  const groupBy = report.range.groupBy;
  const data = report.series.map((p) => ({ ...p, tick: periodTick(p.period, groupBy) }));
  const columns: Column<VolumePeriod>[] = [
    { header: "Period", cell: (p) => periodLabel(p.period, groupBy) },
    ...LINES.map((line) => ({ header: line.name, cell: (p: VolumePeriod) => p[line.key].toLocaleString("en-US"), numeric: true })),
  ];
  const caption = `Conversations per ${groupBy}`;
  return (
    <>
      <p className={styles.summary}>{summary}</p>
      <ChartFrame>
        <LineChart data={data} accessibilityLayer={false} role="img" title={`Volume chart. ${summary}`} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" />
          <XAxis dataKey="tick" tick={AXIS_TICK} minTickGap={16} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={48} />
          <Tooltip />
          <Legend itemSorter={null} />
          {LINES.map((line) => (
            <Line
              key={line.key}
              type="linear"
              dataKey={line.key}
              name={line.name}
              stroke={line.style.color}
              strokeDasharray={"dash" in line.style ? line.style.dash : undefined}
              strokeWidth={2}
              dot={showDots(data.length)}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ChartFrame>
      <TableDetails caption={caption}>
        <FigureTable
          caption={caption}
          columns={columns}
          rows={report.series}
          rowKey={(p) => p.period}
          total={["Total", ...LINES.map((line) => report.total[line.key].toLocaleString("en-US"))]}
        />
      </TableDetails>
    </>
  );
}
