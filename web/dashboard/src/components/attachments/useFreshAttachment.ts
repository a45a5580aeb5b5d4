"use client";

// An attachment with links that work: the API signs them for five minutes, so each file of a
// thread is a query of its own (GET .../attachments/{id}), seeded with the links its message
// brought, asked again a minute before they expire while the thread is on screen, and at once
// when the message came without links (read back from the event log). An image that fails to
// load (its link expired while the tab slept) asks again too, at most once in a while.

import { queryOptions, useQueries, useQuery } from "@tanstack/react-query";
import { type Attachment, LINK_LIFETIME_MS, LINK_MARGIN_MS } from "@supportdesk/shared/attachments";
import { useCallback, useRef } from "react";
import { fetchAttachment } from "@/api/attachments";
import { keys } from "@/api/keys";
import type { Api } from "@/api/client";
import { useApi } from "@/app/providers";

/** Links are this old when asked for again. */
const REFRESH_MS = LINK_LIFETIME_MS - LINK_MARGIN_MS;
/** A broken image asks for new links at most this often. */
const RETRY_BROKEN_MS = 30_000;

/** When the seeded links were made, by their expiry (never later than now). */
function seededAt(attachment: Attachment, now: number): number | undefined {
  const expires = attachment.expiresAt ? Date.parse(attachment.expiresAt) : NaN;
  return Number.isFinite(expires) ? Math.min(now, expires - LINK_LIFETIME_MS) : undefined;
}

/** One file's query: seeded with the links its message brought, asked again before they expire. */
function freshAttachmentQuery(api: Api, workspaceId: string, conversationId: string, attachment: Attachment) {
  const seeded = attachment.url ? attachment : undefined;
  return queryOptions({
    queryKey: keys.attachment(workspaceId, attachment.id),
    queryFn: (): Promise<Attachment> => fetchAttachment(api, conversationId, attachment.id),
    initialData: seeded,
    initialDataUpdatedAt: seeded ? () => seededAt(seeded, Date.now()) : undefined,
    staleTime: REFRESH_MS,
    refetchInterval: (q) => Math.max(RETRY_BROKEN_MS, q.state.dataUpdatedAt + REFRESH_MS - Date.now()),
  });
}

export function useFreshAttachment(workspaceId: string, conversationId: string, attachment: Attachment) {
  const api = useApi();
  const query = useQuery(freshAttachmentQuery(api, workspaceId, conversationId, attachment));
  const lastRetry = useRef(0);
  const { refetch } = query;
  /** For an `<img>`'s error: new links, unless asked for a moment ago. */
  const broken = useCallback(() => {
    const now = Date.now();
    if (now - lastRetry.current < RETRY_BROKEN_MS) return;
    lastRetry.current = now;
    void refetch();
  }, [refetch]);
  // Until the first answer: the facts the message carries (name, size), without links.
  return { attachment: query.data ?? attachment, error: query.error, broken };
}

/** Several files at once (an email's inline images), each the same query as above: the files as last answered. */
export function useFreshAttachments(workspaceId: string, conversationId: string, attachments: readonly Attachment[]): Attachment[] {
  const api = useApi();
  return useQueries({
    queries: attachments.map((a) => freshAttachmentQuery(api, workspaceId, conversationId, a)),
    combine: (results) => results.map((r, i) => r.data ?? attachments[i]!),
  });
}
