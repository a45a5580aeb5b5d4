"use client";

// The files put on a message before it is sent, as chips: name and size, an image's
// thumbnail once uploaded, "Uploading…" while it uploads, the reason when refused (announced),
// and a button to remove each.

import { type DraftFile, fileUrl, formatBytes } from "@supportdesk/shared/attachments";
import { useConfig } from "@/app/providers";
import { FileIcon } from "./MessageFiles";

export function DraftFiles({ drafts, onRemove }: { drafts: DraftFile[]; onRemove: (key: string) => void }) {
  const { apiUrl } = useConfig();
  if (!drafts.length) return null;
  return (
    <ul className="draft-files" aria-label="Files to send">
      {drafts.map((d) => {
        const thumbnail = d.attachment?.hasThumbnail ? fileUrl(apiUrl, d.attachment.thumbnailUrl) : null;
        return (
          <li key={d.key} className={`draft-file draft-${d.status}`} aria-busy={d.status === "uploading" || undefined}>
            {thumbnail ? (
              // eslint-disable-next-line @next/next/no-img-element -- a signed link of the API; no optimizer
              <img className="draft-thumb" src={thumbnail} alt="" width={40} height={40} />
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
            <button type="button" className="ghost draft-remove" aria-label={`Remove ${d.name}`} onClick={() => onRemove(d.key)}>
              <span aria-hidden="true">×</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
