"use client";

// Reports: how much came in and was resolved, how fast the team answered and resolved, how
// customers rated it, when messages arrive (Owners) and each agent's share, over a range of
// days in the workspace's time zone. Owners see everyone's figures; an agent sees their own
// (the API scopes them). Every chart has its numbers in a table and a sentence, and each
// section downloads as CSV.

import { useMemo, useState } from "react";
import { fieldErrors } from "@/components/ui";
import {
  DEFAULT_FILTERS,
  hasRangeErrors,
  rangeErrors,
  rangeText,
  reportQuery,
  type ReportFilters,
} from "@/lib/reports";
import { useWorkspace } from "../WorkspaceContext";
import { AgentsSection } from "./AgentsSection";
import { CsatSection } from "./CsatSection";
import { HeatmapSection } from "./HeatmapSection";
import { ReportFiltersForm } from "./ReportFiltersForm";
import styles from "./reports.module.css";
import { FIRST_RESPONSE, RESOLUTION, TimeSection } from "./TimeSection";
import { useReport } from "./useReport";
import { VolumeSection } from "./VolumeSection";

export function Reports() {
  const { isOwner } = useWorkspace();
  const [filters, setFilters] = useState<ReportFilters>(DEFAULT_FILTERS);
  const set = (change: Partial<ReportFilters>) => setFilters((now) => ({ ...now, ...change }));
  const ownErrors = rangeErrors(filters);
  const enabled = !hasRangeErrors(ownErrors);
  const query = useMemo(() => reportQuery(filters, { isOwner }), [filters, isOwner]);
  // The volume report (its section reads the same query) tells the range the API settled on.
  const volume = useReport("volume", query, enabled);
  const range = volume.data?.range ?? null;
  const errors = {
    from: [...ownErrors.from, ...fieldErrors(volume.error, "from")],
    to: [...ownErrors.to, ...fieldErrors(volume.error, "to")],
  };
  const shown = range && !volume.isPlaceholderData ? `Showing ${rangeText(range)}${isOwner ? "" : ": your own figures"}.` : "";
  return (
    <div className="page">
      <h1>Reports</h1>
      <ReportFiltersForm filters={filters} set={set} isOwner={isOwner} range={range} errors={errors} />
      <p role="status" className={`muted ${styles.range}`}>
        {enabled ? shown : "Fix the range to see the figures."}
      </p>
      <nav aria-label="Report sections" className="toc">
        <a href="#report-volume-heading">Volume</a> <a href="#report-first-response-time-heading">First response time</a>{" "}
        <a href="#report-resolution-time-heading">Resolution time</a> <a href="#report-csat-heading">CSAT</a>{" "}
        {isOwner ? <a href="#report-heatmap-heading">Heatmap</a> : null} <a href="#report-agents-heading">Per agent</a>
      </nav>
      <VolumeSection query={query} enabled={enabled} />
      <TimeSection kind={FIRST_RESPONSE} query={query} enabled={enabled} />
      <TimeSection kind={RESOLUTION} query={query} enabled={enabled} />
      <CsatSection query={query} enabled={enabled} />
      {isOwner ? <HeatmapSection query={query} enabled={enabled} filtered={Boolean(filters.agentId || filters.labelId)} /> : null}
      <AgentsSection query={query} enabled={enabled} isOwner={isOwner} />
    </div>
  );
}
