"use client";

// The audit log (Owners; the API answers 403 to agents): who changed what that matters to the
// workspace's security, from where, newest first, filtered by action, member and days, a page
// at a time ("Load older entries", the API's cursor), and exported as CSV with the same filters.
// It is read again whenever this page opens and after any change made from this tab.

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { useAgents } from "@/api/useAgents";
import { useMinuteClock } from "@/components/inbox/RelativeTime";
import { ErrorMessage, SelectField, StatusMessage, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import {
  actionLabel,
  actorBadge,
  AUDIT_ACTIONS,
  auditAge,
  auditCountText,
  auditPage,
  type AuditEntry,
  type AuditFilters,
  auditQuery,
  auditQueryString,
  CSV_FILE_NAME,
  dateRangeError,
  describeEntry,
  exactTime,
  hasFilters,
  NO_FILTERS,
} from "@/lib/audit";
import { useWorkspace } from "../WorkspaceContext";

const PAGE_SIZE = 50;
/** The export's mutation: the one mutation that changes nothing the log records. */
const EXPORT_KEY = ["audit-log-export"] as const;

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

export function AuditLog() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const [exported, setExported] = useState<string | null>(null);
  const rangeError = dateRangeError(filters);
  const query = auditQuery(filters);
  const queryKey = keys.auditLog(workspace.id, auditQueryString(filters));
  const team = useAgents(workspace.id, "all");
  const log = useInfiniteQuery({
    queryKey,
    queryFn: async ({ pageParam }) =>
      auditPage(await unwrap(api.workspace.GET("/api/audit-log", { params: { query: { ...query, limit: PAGE_SIZE, cursor: pageParam ?? undefined } } }))),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
    enabled: rangeError === null,
    // Always read again when shown: a filter chosen again shows its cached page, then the news.
    staleTime: 0,
    refetchOnMount: "always",
  });
  const exportCsv = useMutation({
    mutationKey: EXPORT_KEY,
    mutationFn: () =>
      unwrap(
        api.workspace.GET("/api/audit-log", {
          params: { query },
          headers: { Accept: "text/csv" },
          parseAs: "blob",
        }),
      ),
    onMutate: () => setExported(null),
    onSuccess: (blob) => {
      download(blob, CSV_FILE_NAME);
      setExported(`${CSV_FILE_NAME} downloaded${hasFilters(filters) ? ", with the entries these filters show" : ""}.`);
    },
  });

  // A change made from this tab (a role, a key, a setting) shows in the log without a reload.
  useEffect(
    () =>
      queryClient.getMutationCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "success") return;
        if (event.mutation.options.mutationKey?.[0] === EXPORT_KEY[0]) return;
        void queryClient.invalidateQueries({ queryKey: keys.allAuditLog(workspace.id) });
      }),
    [queryClient, workspace.id],
  );

  const members = useMemo(
    () => [...(team.data?.agents ?? [])].sort((a, b) => a.fullName.localeCompare(b.fullName)),
    [team.data],
  );
  const entries = log.data?.pages.flatMap((page) => page.entries) ?? [];
  const set = (change: Partial<AuditFilters>) => {
    setExported(null);
    setFilters((now) => ({ ...now, ...change }));
  };
  const filtered = hasFilters(filters);

  return (
    <section aria-labelledby="audit-heading" className="panel audit-log">
      <h2 id="audit-heading">Audit log</h2>
      <p className="hint">
        Who changed the team, keys, the chat widget, webhooks and settings, from which address, newest first. Entries cannot be changed or removed.
      </p>
      <div className="filters audit-filters" role="group" aria-label="Filter the audit log">
        <SelectField label="Action" value={filters.action} onChange={(e) => set({ action: e.target.value })}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {actionLabel(action)}
            </option>
          ))}
        </SelectField>
        <SelectField label="Who" value={filters.actor} onChange={(e) => set({ actor: e.target.value })}>
          <option value="">Any</option>
          {members.map((member) => (
            <option key={member.userId} value={member.userId}>
              {member.fullName || member.email}
              {member.status === "deactivated" ? " (deactivated)" : ""}
            </option>
          ))}
        </SelectField>
        <TextField label="From" type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => set({ from: e.target.value })} />
        <TextField
          label="To"
          type="date"
          value={filters.to}
          min={filters.from || undefined}
          onChange={(e) => set({ to: e.target.value })}
          errors={rangeError ? [rangeError] : []}
        />
      </div>
      <div className="row audit-actions">
        {filtered ? (
          <button type="button" className="ghost" onClick={() => set(NO_FILTERS)}>
            Clear filters
          </button>
        ) : null}
        <button type="button" onClick={() => exportCsv.mutate()} disabled={exportCsv.isPending || rangeError !== null} aria-busy={exportCsv.isPending || undefined}>
          {exportCsv.isPending ? "Exporting…" : "Export CSV"}
        </button>
      </div>
      <ErrorMessage error={exportCsv.error} />
      <StatusMessage>{exported}</StatusMessage>
      <ErrorMessage error={log.error} />
      <p role="status" className="muted audit-count">
        {log.isSuccess ? auditCountText(entries.length, log.hasNextPage, filtered) : log.isFetching ? "Loading the audit log…" : ""}
      </p>
      {entries.length > 0 ? <AuditTable entries={entries} /> : null}
      {log.hasNextPage ? (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage} aria-busy={log.isFetchingNextPage || undefined}>
          {log.isFetchingNextPage ? "Loading older entries…" : "Load older entries"}
        </button>
      ) : null}
    </section>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const captionId = useId();
  const now = useMinuteClock();
  return (
    // Scrolls sideways on narrow screens; focusable, so the keyboard can scroll it too.
    <div className="table-scroll audit-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="table audit-table">
        <caption id={captionId} className="visually-hidden">
          Audit log entries, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">IP address</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const { target, changes } = describeEntry(entry);
            const badge = actorBadge(entry.actor.kind);
            return (
              <tr key={entry.id}>
                <td>
                  <time dateTime={entry.at} title={exactTime(entry.at)}>
                    {now ? auditAge(entry.at, now) : exactTime(entry.at)}
                  </time>
                </td>
                <th scope="row" className="audit-who">
                  {entry.actor.name || (badge ? "" : "Unknown")}
                  {badge ? <span className="badge badge-actor">{badge}</span> : null}
                </th>
                <td>{actionLabel(entry.action)}</td>
                <td className="audit-target">{target}</td>
                <td className="mono">{entry.ip ?? <span className="muted">—</span>}</td>
                <td>
                  {changes.length ? (
                    <ul className="audit-changes">
                      {changes.map((line, i) => (
                        <li key={i}>{line}</li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
