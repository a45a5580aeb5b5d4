"use client";

// One report's section: its heading, what its figures mean, "Download CSV", and its states:
// loading, the API's error, and the figures (kept, marked busy, while other filters' load).

import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { ReportMetric, ReportQuery, ReportRange } from "@/api/reports";
import { ErrorMessage } from "@/components/ui";
import { reportQueryString } from "@/lib/reports";
import { DownloadCsv } from "./DownloadCsv";
import styles from "./reports.module.css";

export function ReportSection<D extends { range: ReportRange }>({
  metric,
  title,
  definition,
  query,
  enabled,
  result,
  children,
}: {
  metric: ReportMetric;
  title: string;
  definition: ReactNode;
  query: ReportQuery;
  /** False while the filters cannot be asked (a custom range that is wrong). */
  enabled: boolean;
  result: UseQueryResult<D>;
  children: (data: D) => ReactNode;
}) {
  const headingId = `report-${metric}-heading`;
  const loading = result.isPending && result.fetchStatus === "fetching";
  const updating = result.isPlaceholderData && result.isFetching;
  const current = result.data && !result.isPlaceholderData ? result.data.range : null;
  return (
    <section aria-labelledby={headingId} className="panel" aria-busy={loading || updating || undefined}>
      <div className={styles.sectionHeader}>
        <div>
          <h2 id={headingId}>{title}</h2>
          <p className={`hint ${styles.definition}`}>{definition}</p>
        </div>
        <DownloadCsv key={reportQueryString(query)} metric={metric} title={title} query={query} range={current} disabled={!enabled} />
      </div>
      <p role="status" className={`muted ${styles.busy}`}>
        {loading ? "Loading the figures…" : updating ? "Updating…" : ""}
      </p>
      <ErrorMessage error={result.error} />
      {enabled && result.data ? children(result.data) : null}
    </section>
  );
}
