"use client";

// One report, read through TanStack Query under the workspace's keys (["ws", id, "reports",
// metric, query]). While other filters' figures load, the last ones stay on screen (marked
// busy) rather than the section emptying and filling again.

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchReport, type ReportMetric, type ReportQuery } from "@/api/reports";
import { useApi } from "@/app/providers";
import { reportQueryString } from "@/lib/reports";
import { useWorkspace } from "../WorkspaceContext";

export function reportKey(workspaceId: string, metric: ReportMetric, query: ReportQuery) {
  return ["ws", workspaceId, "reports", metric, reportQueryString(query)] as const;
}

export function useReport<M extends ReportMetric>(metric: M, query: ReportQuery, enabled: boolean) {
  const api = useApi();
  const { workspace } = useWorkspace();
  return useQuery({
    queryKey: reportKey(workspace.id, metric, query),
    queryFn: () => fetchReport(api, metric, query),
    enabled,
    // Another workspace's figures are never a placeholder for this one's.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === workspace.id ? keepPreviousData(previous) : undefined),
  });
}
