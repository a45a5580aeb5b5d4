"use client";

// A conversation's or a contact's labels, and the disclosure that sets them: one checkbox per
// label of the workspace; each tick or untick replaces the set at once (`save`: PUT
// .../labels), and the caller takes the answer, as the status and priority controls' do.

import { useMutation } from "@tanstack/react-query";
import type { LabelRef } from "@/api/types";
import { ErrorMessage } from "@/components/ui";
import { currentLabels, toggled } from "@/lib/labelSet";
import { LabelChips } from "./LabelChips";
import { useLabels } from "./useLabels";

export function LabelPicker({
  workspaceId,
  current,
  of,
  isOwner,
  save,
}: {
  workspaceId: string;
  /** The labels it carries now. */
  current: readonly LabelRef[];
  /** What carries them, for the fieldset's name: "this conversation", "this contact". */
  of: string;
  isOwner: boolean;
  /** Replaces the set (and applies the answer). */
  save: (labelIds: string[]) => Promise<unknown>;
}) {
  const labels = useLabels(workspaceId);
  const set = useMutation({ mutationFn: save });
  const shown = currentLabels(current, labels.data?.labels);
  const ids = shown.map((label) => label.id);
  const all = labels.data?.labels ?? [];
  return (
    <div className="conversation-labels">
      <LabelChips labels={shown} />
      <details className="label-picker">
        <summary>Labels</summary>
        <fieldset>
          <legend className="visually-hidden">Labels of {of}</legend>
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
