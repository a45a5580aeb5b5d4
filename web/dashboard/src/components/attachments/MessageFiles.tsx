"use client";

// A message's files in the thread: an image as its thumbnail, which opens the full image in a
// new tab; any other file as a link with its name and size that downloads it. Links point at
// the API (resolved against its base address, never this app's) and are kept fresh
// (useFreshAttachment).

import { type Attachment, downloadUrl, fileUrl, formatBytes } from "@supportdesk/shared/attachments";
import { useConfig } from "@/app/providers";
import { useFreshAttachment } from "./useFreshAttachment";

/** Thumbnails are shown at most this many pixels a side. */
const THUMB_PX = 240;

/** Display size of an image of `width` x `height` within THUMB_PX; null when unknown. */
export function thumbSize(width: number | null | undefined, height: number | null | undefined): { width: number; height: number } | null {
  if (!width || !height) return null;
  const scale = Math.min(1, THUMB_PX / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export function MessageFiles({ workspaceId, conversationId, attachments }: { workspaceId: string; conversationId: string; attachments: Attachment[] }) {
  if (!attachments.length) return null;
  return (
    <ul className="message-files" aria-label="Files">
      {attachments.map((a) => (
        <li key={a.id}>
          <MessageFile workspaceId={workspaceId} conversationId={conversationId} attachment={a} />
        </li>
      ))}
    </ul>
  );
}

function MessageFile({ workspaceId, conversationId, attachment: given }: { workspaceId: string; conversationId: string; attachment: Attachment }) {
  const { apiUrl } = useConfig();
  const { attachment, broken } = useFreshAttachment(workspaceId, conversationId, given);
  const url = fileUrl(apiUrl, attachment.url);
  const thumbnail = attachment.hasThumbnail ? fileUrl(apiUrl, attachment.thumbnailUrl) : null;
  const size = formatBytes(attachment.size);
  if (url && thumbnail) {
    const box = thumbSize(attachment.width, attachment.height);
    return (
      <a className="file-image" href={url} target="_blank" rel="noopener noreferrer" title={`${attachment.name}, ${size}: opens in a new tab`}>
        {/* eslint-disable-next-line @next/next/no-img-element -- signed links of the API, short-lived; no optimizer */}
        <img src={thumbnail} alt={attachment.name} width={box?.width} height={box?.height} loading="lazy" onError={broken} />
      </a>
    );
  }
  const label = (
    <>
      <FileIcon />
      <span className="file-name">{attachment.name}</span> <span className="file-size">{size}</span>
    </>
  );
  if (!url) {
    return (
      <span className="file-link pending" aria-busy="true">
        {label}
      </span>
    );
  }
  return (
    <a className="file-link" href={downloadUrl(url)} download={attachment.name}>
      {label}
    </a>
  );
}

export function FileIcon() {
  return (
    <svg className="file-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm7 1.5V9h5.5L13 3.5z" />
    </svg>
  );
}
