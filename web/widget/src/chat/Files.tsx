"use client";

// Files in the chat: a message's files (an image as its thumbnail, opening the full image in a
// new tab; any other file as a download link with its name and size), and the files on their
// way to the visitor's next message, as chips. Links are the API's, resolved against its base
// address (never this app's), and asked for again before they expire (five minutes) or when an
// image fails to load.

import {
  type Attachment,
  type DraftFile,
  downloadUrl,
  fileUrl,
  formatBytes,
  LINK_LIFETIME_MS,
  LINK_MARGIN_MS,
} from "@supportdesk/shared/attachments";
import { useCallback, useEffect, useRef, useState } from "react";

/** Links are this old when asked for again. */
const REFRESH_MS = LINK_LIFETIME_MS - LINK_MARGIN_MS;
/** A failed refresh, or a broken image, asks again after this long at the soonest. */
const RETRY_MS = 30_000;
/** Thumbnails are shown at most this many pixels a side. */
const THUMB_PX = 200;

function expiry(attachment: Attachment): number {
  const at = attachment.expiresAt ? Date.parse(attachment.expiresAt) : NaN;
  return Number.isFinite(at) ? at : -Infinity;
}

/**
 * `given` (as the message brought it) or the links fetched since, whichever expire later;
 * fetched again REFRESH_MS after they arrived (the local clock, whatever the server's), at once
 * when there are none, and when `broken()` says an image did not load.
 */
function useFreshAttachment(given: Attachment, refresh: (id: string) => Promise<Attachment>) {
  const [fetched, setFetched] = useState<Attachment | null>(null);
  const [retry, setRetry] = useState(0);
  const attachment = fetched && fetched.id === given.id && expiry(fetched) > expiry(given) ? fetched : given;
  const { id } = given;
  const hasLinks = !!attachment.url;
  const lastBroken = useRef(0);

  useEffect(() => {
    let live = true;
    const timer = setTimeout(
      () => {
        refresh(id).then(
          (a) => {
            if (live) setFetched(a);
          },
          () => {
            if (live) setTimeout(() => live && setRetry((n) => n + 1), RETRY_MS);
          },
        );
      },
      hasLinks ? REFRESH_MS : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `attachment` changes when new links arrive: the next refresh counts from then.
  }, [attachment, hasLinks, id, refresh, retry]);

  const broken = useCallback(() => {
    const now = Date.now();
    if (now - lastBroken.current < RETRY_MS) return;
    lastBroken.current = now;
    refresh(id).then(setFetched, () => undefined);
  }, [id, refresh]);

  return { attachment, broken };
}

function thumbSize(width: number | null | undefined, height: number | null | undefined) {
  if (!width || !height) return null;
  const scale = Math.min(1, THUMB_PX / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export function MessageFiles({
  apiUrl,
  attachments,
  refresh,
}: {
  apiUrl: string;
  attachments: Attachment[];
  refresh: (id: string) => Promise<Attachment>;
}) {
  if (!attachments.length) return null;
  return (
    <ul className="files" aria-label="Files">
      {attachments.map((a) => (
        <li key={a.id}>
          <MessageFile apiUrl={apiUrl} given={a} refresh={refresh} />
        </li>
      ))}
    </ul>
  );
}

function MessageFile({ apiUrl, given, refresh }: { apiUrl: string; given: Attachment; refresh: (id: string) => Promise<Attachment> }) {
  const { attachment, broken } = useFreshAttachment(given, refresh);
  const url = fileUrl(apiUrl, attachment.url);
  const thumbnail = attachment.hasThumbnail ? fileUrl(apiUrl, attachment.thumbnailUrl) : null;
  const size = formatBytes(attachment.size);
  if (url && thumbnail) {
    const box = thumbSize(attachment.width, attachment.height);
    return (
      <a className="file-image" href={url} target="_blank" rel="noopener noreferrer" title={`${attachment.name}, ${size}: opens in a new tab`}>
        {/* eslint-disable-next-line @next/next/no-img-element -- signed links of the API, short-lived; no optimizer */}
        <img src={thumbnail} alt={attachment.name} width={box?.width} height={box?.height} onError={broken} />
      </a>
    );
  }
  const label = (
    <>
      <FileIcon />
      <span className="file-name">{attachment.name}</span> <span className="file-size">{size}</span>
    </>
  );
  if (!url) return <span className="file-link pending">{label}</span>;
  return (
    <a className="file-link" href={downloadUrl(url)} download={attachment.name}>
      {label}
    </a>
  );
}

function FileIcon() {
  return (
    <svg className="file-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm7 1.5V9h5.5L13 3.5z" />
    </svg>
  );
}

export function DraftFiles({ apiUrl, drafts, onRemove }: { apiUrl: string; drafts: DraftFile[]; onRemove: (key: string) => void }) {
  if (!drafts.length) return null;
  return (
    <ul className="drafts" aria-label="Files to send">
      {drafts.map((d) => {
        const thumbnail = d.attachment?.hasThumbnail ? fileUrl(apiUrl, d.attachment.thumbnailUrl) : null;
        return (
          <li key={d.key} className={`draft draft-${d.status}`} aria-busy={d.status === "uploading" || undefined}>
            {thumbnail ? (
              // eslint-disable-next-line @next/next/no-img-element -- a signed link of the API; no optimizer
              <img className="draft-thumb" src={thumbnail} alt="" width={32} height={32} />
            ) : (
              <FileIcon />
            )}
            <span className="draft-text">
              <span className="file-name">{d.name}</span> <span className="file-size">{formatBytes(d.size)}</span>
              {d.status === "uploading" ? (
                <span className="draft-state" role="status">
                  Uploading…
                </span>
              ) : null}
              {d.status === "failed" ? (
                <span className="draft-error" role="alert">
                  {d.error}
                </span>
              ) : null}
            </span>
            <button type="button" className="draft-remove" aria-label={`Remove ${d.name}`} onClick={() => onRemove(d.key)}>
              <span aria-hidden="true">×</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
