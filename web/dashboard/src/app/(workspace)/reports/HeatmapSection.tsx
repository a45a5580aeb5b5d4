"use client";

// When messages come in (Owners): a week of hours, Monday first, in the workspace's time zone.
// The heatmap is a table: each cell writes its count and names it in full in its title, and
// its shade (one of five, explained in the legend) only repeats what the number says.

import { useId } from "react";
import type { HeatmapReport, ReportQuery } from "@/api/reports";
import {
  HEATMAP_LEVELS,
  heatmapCellLabel,
  heatmapGrid,
  heatmapLevel,
  heatmapMax,
  heatmapQuery,
  heatmapSummary,
  HOURS,
  hourLabel,
  WEEKDAYS,
} from "@/lib/reports";
import { ReportSection } from "./ReportSection";
import styles from "./reports.module.css";
import { useReport } from "./useReport";

const LEVEL_CLASS = [styles.level0, styles.level1, styles.level2, styles.level3, styles.level4];

export function HeatmapSection({ query, enabled, filtered }: { query: ReportQuery; enabled: boolean; filtered: boolean }) {
  const own = heatmapQuery(query);
  const result = useReport("heatmap", own, enabled);
  return (
    <ReportSection
      metric="heatmap"
      title="Heatmap"
      definition={`Incoming messages by weekday and hour, in the workspace's time zone, over the whole range.${filtered ? " Only the channel filter applies: the heatmap counts every agent's conversations, with any label." : ""}`}
      query={own}
      enabled={enabled}
      result={result}
    >
      {(report) => <Heatmap report={report} />}
    </ReportSection>
  );
}

function Heatmap({ report }: { report: HeatmapReport }) {
  const captionId = useId();
  const grid = heatmapGrid(report.cells);
  const max = heatmapMax(grid);
  const summary = heatmapSummary(grid);
  if (max === 0) return <p className={styles.summary}>{summary}</p>;
  return (
    <>
      <p className={styles.summary}>{summary}</p>
      <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
        <table className={styles.heatmap}>
          <caption id={captionId}>Incoming messages by weekday and hour ({report.range.timeZone})</caption>
          <thead>
            <tr>
              <td />
              {HOURS.map((hour) => (
                <th key={hour} scope="col" title={`${hourLabel(hour)} to ${hour === 23 ? "24:00" : hourLabel(hour + 1)}`}>
                  {String(hour).padStart(2, "0")}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {grid.map((row, day) => (
              <tr key={WEEKDAYS[day]}>
                <th scope="row">
                  <abbr title={WEEKDAYS[day]}>{WEEKDAYS[day]?.slice(0, 3)}</abbr>
                </th>
                {row.map((count, hour) => (
                  <td key={hour} className={LEVEL_CLASS[heatmapLevel(count, max)]} title={heatmapCellLabel(day + 1, hour, count)}>
                    {count}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Legend max={max} />
    </>
  );
}

/** The shades, in words: none, then four steps up to the busiest hour's count. */
function Legend({ max }: { max: number }) {
  const steps = Array.from({ length: HEATMAP_LEVELS }, (_, i) => i + 1);
  const upTo = (level: number) => Math.floor((max * level) / HEATMAP_LEVELS);
  return (
    <ul className={styles.legend} aria-label="Shades">
      <li>
        <span className={`${styles.swatch} ${styles.level0}`} aria-hidden="true" />
        none
      </li>
      {steps.map((level) => {
        const from = level === 1 ? 1 : upTo(level - 1) + 1;
        const to = level === HEATMAP_LEVELS ? max : upTo(level);
        if (to < from) return null;
        return (
          <li key={level}>
            <span className={`${styles.swatch} ${LEVEL_CLASS[level]}`} aria-hidden="true" />
            {from === to ? `${to}` : `${from}–${to}`}
          </li>
        );
      })}
    </ul>
  );
}
