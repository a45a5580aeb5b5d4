// The reports (`GET /api/reports/*`): their records, named from the generated schema, and
// reading them as JSON or as a CSV file. The calls go through the workspace client, so they
// carry the workspace token and end the session on a 401 as every other call does.

import type { Api } from "./client";
import { unwrap } from "./client";
import type { components, paths } from "./schema";

type Schemas = components["schemas"];

export type ReportGroupBy = Schemas["ReportGroupBy"];
export type ReportChannel = Schemas["Channel"];
/** The range a report covers, as the API settled it (defaults filled in). */
export type ReportRange = Schemas["ReportRange"];
export type VolumePeriod = Schemas["VolumePeriod"];
export type VolumeTotal = Schemas["VolumeTotal"];
export type VolumeReport = Schemas["VolumeReport"];
/** Durations in whole seconds; `median` and `p90` are null when `count` is 0. */
export type TimePeriod = Schemas["TimePeriod"];
export type TimeTotal = Schemas["TimeTotal"];
export type TimeReport = Schemas["TimeReport"];
/** `score` is satisfied / responses (0..1), null when there were no responses. */
export type CsatPeriod = Schemas["CsatPeriod"];
export type CsatTotal = Schemas["CsatTotal"];
export type RatingCount = Schemas["RatingCount"];
export type CsatReport = Schemas["CsatReport"];
export type HeatmapCell = Schemas["HeatmapCell"];
export type HeatmapReport = Schemas["HeatmapReport"];
export type AgentReportRow = Schemas["AgentReportRow"];
export type AgentsReport = Schemas["AgentsReport"];

/** The query every report takes; all optional. */
export type ReportQuery = NonNullable<paths["/api/reports/volume"]["get"]["parameters"]["query"]>;

/** Each report's path segment, which also starts its CSV file's name. */
export type ReportMetric = "volume" | "first-response-time" | "resolution-time" | "csat" | "heatmap" | "agents";

export interface ReportByMetric {
  volume: VolumeReport;
  "first-response-time": TimeReport;
  "resolution-time": TimeReport;
  csat: CsatReport;
  heatmap: HeatmapReport;
  agents: AgentsReport;
}

type ReportPath = `/api/reports/${ReportMetric}`;

/** One report as JSON. */
export function fetchReport<M extends ReportMetric>(api: Api, metric: M, query: ReportQuery): Promise<ReportByMetric[M]> {
  const path: ReportPath = `/api/reports/${metric}`;
  return unwrap(api.workspace.GET(path, { params: { query } })) as Promise<ReportByMetric[M]>;
}

export interface ReportCsv {
  blob: Blob;
  /** The response's `Content-Disposition`, when the browser may read it (null across origins that do not expose it). */
  contentDisposition: string | null;
}

/** One report as a CSV file (`Accept: text/csv`). */
export async function fetchReportCsv(api: Api, metric: ReportMetric, query: ReportQuery): Promise<ReportCsv> {
  const path: ReportPath = `/api/reports/${metric}`;
  let contentDisposition: string | null = null;
  const blob = await unwrap(
    api.workspace
      .GET(path, { params: { query }, headers: { Accept: "text/csv" }, parseAs: "blob" })
      .then((answer) => {
        contentDisposition = answer.response.headers.get("Content-Disposition");
        return answer;
      }),
  );
  return { blob, contentDisposition };
}
