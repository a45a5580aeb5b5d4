"use client";

// What the workspace's files (attachments on messages) take of its quota.

import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ErrorMessage } from "@/components/ui";
import { useApi } from "@/app/providers";
import { storagePercent, storageSentence } from "@/lib/storage";
import { useWorkspace } from "../WorkspaceContext";

export function Storage() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const sentenceId = useId();
  const storage = useQuery({ queryKey: keys.storage(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings/storage")) });
  const use = storage.data;
  return (
    <section aria-labelledby="storage-heading" className="panel">
      <h2 id="storage-heading">Files</h2>
      <p className="hint">Files sent with messages, by visitors and by agents, count towards the workspace&apos;s storage.</p>
      <ErrorMessage error={storage.error} />
      {use ? (
        <div className="storage-use">
          <p id={sentenceId} data-testid="storage-use">
            {storageSentence(use)}
          </p>
          <meter min={0} max={100} low={80} high={95} optimum={0} value={storagePercent(use)} aria-labelledby={sentenceId}>
            {storagePercent(use)}%
          </meter>
        </div>
      ) : storage.isPending ? (
        <p role="status">Loading storage use…</p>
      ) : null}
    </section>
  );
}
