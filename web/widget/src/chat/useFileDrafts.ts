"use client";

// Files the visitor is putting on a message: each uploads as soon as it is chosen or pasted,
// and shows as a chip until the message is sent or the file removed. Files beyond the
// message's limit or too large are refused at once, saying why; removing a file that is still
// uploading cancels its upload. The list itself is the shared pure `draftsReducer`.

import {
  admitFiles,
  type Attachment,
  countedFiles,
  type DraftAction,
  type DraftFile,
  draftsReducer,
  MAX_FILES_PER_MESSAGE,
  readyIds,
  uploading,
} from "@supportdesk/shared/attachments";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "./api";

export interface FileDrafts {
  drafts: DraftFile[];
  add(files: File[]): void;
  remove(key: string): void;
  clear(): void;
  /** The ids to send, in the order added. */
  ids: string[];
  uploading: boolean;
}

/** What a refused upload says: the API's detail, and when to try again (429). */
export function uploadError(error: unknown): string {
  if (error instanceof ApiError) {
    const { detail, status, retryAfter } = error.problem;
    return status === 429 && retryAfter !== null ? `${detail} Try again in ${retryAfter} s.` : detail;
  }
  return error instanceof Error && error.message ? error.message : "The file could not be sent.";
}

export function useFileDrafts(upload: (file: File, signal: AbortSignal) => Promise<Attachment>, maxBytes: number): FileDrafts {
  const [drafts, setDrafts] = useState<DraftFile[]>([]);
  // The list as of the last action, read synchronously (two quick adds must see each other).
  const current = useRef<DraftFile[]>([]);
  const uploads = useRef(new Map<string, AbortController>());
  const next = useRef(0);

  const apply = useCallback((action: DraftAction) => {
    current.current = draftsReducer(current.current, action);
    setDrafts(current.current);
  }, []);

  useEffect(() => {
    const running = uploads.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      running.clear();
    };
  }, []);

  const add = useCallback(
    (files: File[]) => {
      const room = MAX_FILES_PER_MESSAGE - countedFiles(current.current);
      const { accepted, refused } = admitFiles(files, room, maxBytes);
      const key = () => `file-${++next.current}`;
      for (const { file, error } of refused) apply({ type: "refused", key: key(), name: file.name, size: file.size, error });
      const keyed = accepted.map((file) => ({ file, key: key() }));
      if (!keyed.length) return;
      apply({ type: "added", files: keyed.map(({ file, key }) => ({ key, name: file.name, size: file.size })) });
      for (const { file, key } of keyed) {
        const controller = new AbortController();
        uploads.current.set(key, controller);
        upload(file, controller.signal)
          .then(
            (attachment) => {
              if (!controller.signal.aborted) apply({ type: "uploaded", key, attachment });
            },
            (error: unknown) => {
              if (!controller.signal.aborted) apply({ type: "failed", key, error: uploadError(error) });
            },
          )
          .finally(() => uploads.current.delete(key));
      }
    },
    [apply, upload, maxBytes],
  );

  const remove = useCallback(
    (key: string) => {
      uploads.current.get(key)?.abort();
      uploads.current.delete(key);
      apply({ type: "removed", key });
    },
    [apply],
  );

  const clear = useCallback(() => apply({ type: "cleared" }), [apply]);

  return { drafts, add, remove, clear, ids: readyIds(drafts), uploading: uploading(drafts) };
}
