"use client";

// A section's "Download CSV": the same report with `Accept: text/csv`, fetched with the
// workspace token like every call, and handed to the browser as a file. Its name is the one
// the API gives (`<metric>-<from>-<to>.csv`): from Content-Disposition when the browser may
// read it, else made the same way from the range the section shows.

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { fetchReportCsv, type ReportMetric, type ReportQuery, type ReportRange } from "@/api/reports";
import { useApi } from "@/app/providers";
import { ErrorMessage, StatusMessage } from "@/components/ui";
import { csvFileName, reportFileName } from "@/lib/reports";

/** Hands `blob` to the browser as a download named `name`. */
function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; the URL can go once the browser has taken it.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function DownloadCsv({
  metric,
  title,
  query,
  range,
  disabled,
}: {
  metric: ReportMetric;
  /** The section's name, for the button's accessible name. */
  title: string;
  query: ReportQuery;
  /** The range of the figures shown (null while they are not this query's). */
  range: Pick<ReportRange, "from" | "to"> | null;
  disabled: boolean;
}) {
  const api = useApi();
  const [saved, setSaved] = useState<string | null>(null);
  const fallbackRange = range ?? (query.from && query.to ? { from: query.from, to: query.to } : null);
  const csv = useMutation({
    mutationFn: () => fetchReportCsv(api, metric, query),
    onMutate: () => setSaved(null),
    onSuccess: ({ blob, contentDisposition }) => {
      const name = csvFileName(contentDisposition, reportFileName(metric, fallbackRange));
      download(blob, name);
      setSaved(`${name} downloaded.`);
    },
  });
  return (
    <div>
      <button type="button" className="ghost" onClick={() => csv.mutate()} disabled={disabled || csv.isPending} aria-busy={csv.isPending || undefined}>
        {csv.isPending ? "Downloading…" : "Download CSV"}
        <span className="visually-hidden"> ({title})</span>
      </button>
      <ErrorMessage error={csv.error} />
      <StatusMessage>{saved}</StatusMessage>
    </div>
  );
}
