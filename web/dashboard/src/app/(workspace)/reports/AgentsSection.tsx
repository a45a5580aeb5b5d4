"use client";

// Per agent: each agent's first responses, resolutions and ratings over the range, with their
// medians and CSAT score (an agent sees their own row).

import type { AgentReportRow, AgentsReport, ReportQuery } from "@/api/reports";
import { formatDuration, formatScore } from "@/lib/reports";
import { type Column, FigureTable } from "./FigureTable";
import { ReportSection } from "./ReportSection";
import styles from "./reports.module.css";
import { useReport } from "./useReport";

const count = (n: number) => n.toLocaleString("en-US");

const COLUMNS: readonly Column<AgentReportRow>[] = [
  { header: "Agent", cell: (a) => a.displayName },
  { header: "First responses", cell: (a) => count(a.firstResponses), numeric: true },
  { header: "Median first response", cell: (a) => formatDuration(a.firstResponseMedian), numeric: true },
  { header: "Resolutions", cell: (a) => count(a.resolutions), numeric: true },
  { header: "Median resolution", cell: (a) => formatDuration(a.resolutionMedian), numeric: true },
  { header: "Ratings", cell: (a) => count(a.ratings), numeric: true },
  { header: "CSAT", cell: (a) => formatScore(a.csatScore), numeric: true },
];

export function AgentsSection({ query, enabled, isOwner }: { query: ReportQuery; enabled: boolean; isOwner: boolean }) {
  const result = useReport("agents", query, enabled);
  return (
    <ReportSection
      metric="agents"
      title="Per agent"
      definition={`${isOwner ? "Each agent's" : "Your"} first responses, resolutions and ratings in the range, as credited above: a first response to the agent who replied, a resolution to the assignee at resolution.`}
      query={query}
      enabled={enabled}
      result={result}
    >
      {(report) => <AgentsTable report={report} />}
    </ReportSection>
  );
}

function AgentsTable({ report }: { report: AgentsReport }) {
  if (report.agents.length === 0) return <p className={styles.summary}>No agents&apos; figures in this range.</p>;
  return <FigureTable caption="Figures per agent" columns={COLUMNS} rows={report.agents} rowKey={(a) => a.agentId} />;
}
