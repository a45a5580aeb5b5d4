"use client";

// A conversation's labels, and the disclosure that sets them: one checkbox per label of the
// workspace; each tick or untick replaces the set at once (PUT .../labels), and the answer
// (the conversation) goes to the caller, as the status and priority controls' do.

import { useMutation } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import type { Conversation } from "@/api/types";
import { useApi } from "@/app/providers";
import { ErrorMessage } from "@/components/ui";
import { currentLabels, toggled } from "@/lib/labelSet";
import { LabelChips } from "./LabelChips";
import { useLabels } from "./useLabels";

export function LabelPicker({
  workspaceId,
  conversation,
  isOwner,
  onUpdated,
}: {
  workspaceId: string;
  conversation: Conversation;
  isOwner: boolean;
  onUpdated: (updated: Conversation) => void;
}) {
  const api = useApi();
  const labels = useLabels(workspaceId);
  const set = useMutation({
    mutationFn: (labelIds: string[]) =>
      unwrap(api.workspace.PUT("/api/conversations/{id}/labels", { params: { path: { id: conversation.id } }, body: { labelIds } })),
    onSuccess: onUpdated,
  });
  const shown = currentLabels(conversation.labels ?? [], labels.data?.labels);
  const ids = shown.map((label) => label.id);
  const all = labels.data?.labels ?? [];
  return (
    <div className="conversation-labels">
      <LabelChips labels={shown} />
      <details className="label-picker">
        <summary>Labels</summary>
        <fieldset>
          <legend className="visually-hidden">Labels of this conversation</legend>
          {labels.isSuccess && all.length === 0 ? (
            <p className="muted">{isOwner ? "No labels yet: make them in Settings." : "No labels yet: an Owner makes them in Settings."}</p>
          ) : null}
          {all.map((label) => (
            <label key={label.id} className="checkbox">
              <input
                type="checkbox"
                checked={ids.includes(label.id)}
                disabled={set.isPending}
                onChange={(event) => set.mutate(toggled(ids, label.id, event.target.checked))}
              />{" "}
              <span className="label-swatch" style={{ background: label.color }} aria-hidden="true" />
              {label.name}
            </label>
          ))}
        </fieldset>
      </details>
      <ErrorMessage error={labels.error ?? set.error} />
    </div>
  );
}
