"use client";

// CSAT: the share of ratings that were 4 or 5, per period, and how the ratings spread over 1
// to 5, each chart with its table.

import { Bar, BarChart, CartesianGrid, LabelList, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CsatPeriod, CsatReport, RatingCount, ReportQuery } from "@/api/reports";
import { csatSummary, fillDistribution, formatScore, isSatisfied, periodLabel, periodTick, plural, shareText } from "@/lib/reports";
import { ChartFrame } from "./ChartFrame";
import { AXIS_TICK, GRID_STROKE, SERIES, showDots } from "./chartStyle";
import { type Column, FigureTable, TableDetails } from "./FigureTable";
import { ReportSection } from "./ReportSection";
import styles from "./reports.module.css";
import { useReport } from "./useReport";

const scoreTick = (value: number) => formatScore(value);

export function CsatSection({ query, enabled }: { query: ReportQuery; enabled: boolean }) {
  const result = useReport("csat", query, enabled);
  return (
    <ReportSection
      metric="csat"
      title="CSAT"
      definition="Customer satisfaction: the share of ratings that are 4 or 5 (satisfied), counted in the period of the rating."
      query={query}
      enabled={enabled}
      result={result}
    >
      {(report) => <CsatFigures report={report} />}
    </ReportSection>
  );
}

function CsatFigures({ report }: { report: CsatReport }) {
  const summary = csatSummary(report.total);
  if (report.total.responses === 0) return <p className={styles.summary}>{summary}</p>;
  return (
    <>
      <p className={styles.summary}>{summary}</p>
      <div className={styles.charts}>
        <ScoreOverTime report={report} />
        <Distribution report={report} />
      </div>
    </>
  );
}

function ScoreOverTime({ report }: { report: CsatReport }) {
  const groupBy = report.range.groupBy;
  const data = report.series.map((p) => ({ ...p, tick: periodTick(p.period, groupBy) }));
  const rated = report.series.filter((p) => p.responses > 0).length;
  const columns: Column<CsatPeriod>[] = [
    { header: "Period", cell: (p) => periodLabel(p.period, groupBy) },
    { header: "Ratings", cell: (p) => p.responses.toLocaleString("en-US"), numeric: true },
    { header: "Satisfied", cell: (p) => p.satisfied.toLocaleString("en-US"), numeric: true },
    { header: "Score", cell: (p) => formatScore(p.score), numeric: true },
  ];
  const caption = `CSAT score per ${groupBy}`;
  return (
    <div>
      <h3>Score over time</h3>
      <ChartFrame>
        <LineChart
          data={data}
          accessibilityLayer={false}
          role="img"
          title={`CSAT score over time: ${formatScore(report.total.score)} overall, ${plural(rated, `${groupBy} with ratings`, `${groupBy}s with ratings`)}.`}
          margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
        >
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" />
          <XAxis dataKey="tick" tick={AXIS_TICK} minTickGap={16} />
          <YAxis domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={scoreTick} tick={AXIS_TICK} width={48} />
          <Tooltip formatter={(value) => (typeof value === "number" ? formatScore(value) : String(value ?? ""))} />
          <Line type="linear" dataKey="score" name="Score" stroke={SERIES.score.color} strokeWidth={2} dot={showDots(data.length) || rated < 3} isAnimationActive={false} />
        </LineChart>
      </ChartFrame>
      <TableDetails caption={caption}>
        <FigureTable
          caption={caption}
          columns={columns}
          rows={report.series}
          rowKey={(p) => p.period}
          total={["Total", report.total.responses.toLocaleString("en-US"), report.total.satisfied.toLocaleString("en-US"), formatScore(report.total.score)]}
        />
      </TableDetails>
    </div>
  );
}

function Distribution({ report }: { report: CsatReport }) {
  const distribution = fillDistribution(report.distribution);
  const total = report.total.responses;
  const data = distribution.map((r) => ({ ...r, tick: `${r.rating}` }));
  const columns: Column<RatingCount>[] = [
    { header: "Rating", cell: (r) => `${r.rating}${isSatisfied(r.rating) ? " (satisfied)" : ""}` },
    { header: "Ratings", cell: (r) => r.count.toLocaleString("en-US"), numeric: true },
    { header: "Share", cell: (r) => shareText(r.count, total), numeric: true },
  ];
  const described = distribution.map((r) => `${r.rating}: ${r.count}`).join(", ");
  return (
    <div>
      <h3>Ratings from 1 to 5</h3>
      <ChartFrame>
        <BarChart data={data} accessibilityLayer={false} role="img" title={`Ratings from 1 to 5: ${described}.`} margin={{ top: 20, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="tick" tick={AXIS_TICK} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={48} />
          <Tooltip />
          <Bar dataKey="count" name="Ratings" fill={SERIES.ratings.color} isAnimationActive={false}>
            <LabelList dataKey="count" position="top" fill="#1f2430" fontSize={12} />
          </Bar>
        </BarChart>
      </ChartFrame>
      <FigureTable caption="Ratings from 1 to 5" columns={columns} rows={distribution} rowKey={(r) => `${r.rating}`} total={["Total", total.toLocaleString("en-US"), shareText(total, total)]} />
    </div>
  );
}
