"use client";

// One endpoint's delivery log, newest first: every attempt of the last 30 days (time, event
// type, attempt, status, the receiver's HTTP status, latency, error, and its answer's first
// 2 KiB behind a disclosure), and the requests the worker has not sent yet ("Pending"). Older
// pages load on demand; while a row is pending the log is read again every 3 s, so its
// outcome shows without a reload. An attempt can be sent again ("Retry"), before the endpoint
// goes on with newer events.

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Webhook } from "@/api/types";
import { useApi } from "@/app/providers";
import { ErrorMessage } from "@/components/ui";
import {
  canRetry,
  deliveryStatusLabel,
  hasPendingDelivery,
  httpStatusLabel,
  latencyLabel,
  parseDeliveryPage,
  type WebhookDelivery,
} from "@/lib/webhooks";
import { useWorkspace } from "../WorkspaceContext";

/** Rows per page of the log. */
const PAGE_SIZE = 20;
/** How often the log is read again while a row waits for the worker. */
export const LOG_POLL_MS = 3_000;

function logTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function DeliveryLog({ webhook, headingId }: { webhook: Webhook; headingId: string }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const tableRef = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const [notice, setNotice] = useState("");
  const logKey = keys.webhookDeliveries(workspace.id, webhook.id);
  const log = useInfiniteQuery({
    queryKey: logKey,
    queryFn: async ({ pageParam }) =>
      parseDeliveryPage(
        await unwrap(
          api.workspace.GET("/api/webhooks/{id}/deliveries", {
            params: { path: { id: webhook.id }, query: { limit: PAGE_SIZE, cursor: pageParam ?? undefined } },
          }),
        ),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (query) => (hasPendingDelivery(query.state.data?.pages ?? []) ? LOG_POLL_MS : false),
  });
  const retry = useMutation({
    mutationFn: (delivery: WebhookDelivery) =>
      unwrap(
        api.workspace.POST("/api/webhooks/{id}/deliveries/{deliveryId}/retry", {
          params: { path: { id: webhook.id, deliveryId: delivery.id } },
        }),
      ),
    onSuccess: (_, delivery) => {
      setNotice(`Retry of ${delivery.eventType} queued: it shows at the top of the log as Pending.`);
      void queryClient.invalidateQueries({ queryKey: logKey });
    },
  });
  const pages = log.data?.pages ?? [];
  const rows = pages.flatMap((p) => p.deliveries);
  const polling = hasPendingDelivery(pages);

  return (
    <div className="delivery-log">
      <h4 id={headingId}>Delivery log</h4>
      <p className="hint" id={hintId}>
        Newest first; attempts are kept for 30 days.{polling ? " A delivery is pending: the log refreshes every few seconds." : ""}
      </p>
      <ErrorMessage error={log.error ?? retry.error} />
      <p role="status" className="status-message">
        {notice}
      </p>
      {log.isPending && !log.isError ? <p role="status">Loading the delivery log…</p> : null}
      {log.isSuccess && rows.length === 0 ? <p className="muted">No deliveries yet. Send a test event to check the receiver.</p> : null}
      {rows.length > 0 ? (
        // Focusable, so the table can be scrolled sideways from the keyboard on small screens.
        <div className="table-scroll" role="region" aria-labelledby={headingId} aria-describedby={hintId} tabIndex={0} ref={tableRef}>
          <table className="table log-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event type</th>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP status</th>
                <th scope="col">Latency</th>
                <th scope="col">Error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-status={d.status}>
                  <td>
                    <time dateTime={d.createdAt}>{logTime(d.createdAt)}</time>
                  </td>
                  <td className="mono">{d.eventType}</td>
                  <td>{d.attempt}</td>
                  <td>
                    <span className={`log-status log-${d.status}`}>{deliveryStatusLabel(d.status)}</span>
                  </td>
                  <td>{httpStatusLabel(d.responseStatus)}</td>
                  <td>{latencyLabel(d.latencyMs)}</td>
                  <td className="log-error">
                    {d.error ?? (d.status === "pending" ? "Not sent yet" : "—")}
                    {d.responseBody ? (
                      <details className="response-body">
                        <summary>Response body</summary>
                        <pre>{d.responseBody}</pre>
                      </details>
                    ) : null}
                  </td>
                  <td>
                    {canRetry(d) ? (
                      <button
                        type="button"
                        onClick={() => retry.mutate(d)}
                        disabled={retry.isPending && retry.variables?.id === d.id}
                        aria-label={`Retry ${d.eventType}, attempt ${d.attempt}, ${logTime(d.createdAt)}`}
                      >
                        Retry
                      </button>
                    ) : (
                      <span className="muted">Queued</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <button
          type="button"
          className="ghost"
          disabled={log.isFetchingNextPage}
          aria-busy={log.isFetchingNextPage || undefined}
          onClick={async () => {
            const before = rows.length;
            const result = await log.fetchNextPage();
            const after = result.data?.pages.reduce((n, p) => n + p.deliveries.length, 0) ?? before;
            const more = after - before;
            setNotice(more > 0 ? `${more} older ${more === 1 ? "delivery" : "deliveries"} loaded.` : "No older deliveries.");
            // The button goes with the last page: the focus stays in the log.
            if (!result.hasNextPage) tableRef.current?.focus();
          }}
        >
          {log.isFetchingNextPage ? "Loading…" : "Load older deliveries"}
        </button>
      ) : null}
    </div>
  );
}
