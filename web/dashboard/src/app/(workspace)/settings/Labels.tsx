"use client";

// The workspace's labels: listed with their colour and description, made and edited in a
// dialog, deleted after a confirmation (which takes the label off every conversation); the
// deleted label's row is gone, so the focus goes to "New label".

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Label } from "@/api/types";
import { useApi } from "@/app/providers";
import { LabelChips } from "@/components/labels/LabelChips";
import { useLabels } from "@/components/labels/useLabels";
import { ConfirmDialog, Dialog, ErrorMessage, fieldErrors, formText, SubmitButton, TextField } from "@/components/ui";
import { useWorkspace } from "../WorkspaceContext";

const DEFAULT_COLOR = "#2563eb";

export function Labels() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const list = useLabels(workspace.id);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.labels(workspace.id) }),
      queryClient.invalidateQueries({ queryKey: keys.conversations(workspace.id) }),
    ]);
  const [editing, setEditing] = useState<Label | "new" | null>(null);
  const [deleting, setDeleting] = useState<Label | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const [focusNew, setFocusNew] = useState(0);
  useEffect(() => {
    if (focusNew) newButton.current?.focus();
  }, [focusNew]);
  const save = useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: { name: string; color: string; description: string } }) =>
      id
        ? unwrap(api.workspace.PATCH("/api/labels/{id}", { params: { path: { id } }, body }))
        : unwrap(api.workspace.POST("/api/labels", { body })),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/labels/{id}", { params: { path: { id } } })),
    onSuccess: () => void refresh(),
  });
  const current = editing === "new" ? null : editing;
  const labels = list.data?.labels ?? [];
  return (
    <section aria-labelledby="labels-heading" className="panel">
      <h2 id="labels-heading">Labels</h2>
      <p className="hint">Agents put labels on conversations and on contacts; the inbox and saved views filter by them.</p>
      <button type="button" ref={newButton} onClick={() => setEditing("new")}>
        New label
      </button>
      <ErrorMessage error={list.error ?? remove.error} />
      {labels.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Description</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {labels.map((label) => (
              <tr key={label.id}>
                <th scope="row">
                  <LabelChips labels={[label]} />
                </th>
                <td>{label.description ?? ""}</td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(label)} aria-label={`Edit label ${label.name}`}>
                    Edit
                  </button>
                  <button type="button" className="danger" onClick={() => setDeleting(label)} aria-label={`Delete label ${label.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.isSuccess ? (
        <p className="muted">No labels yet.</p>
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the label ${deleting?.name ?? ""}?`}
        action="Delete"
        pending={remove.isPending}
        onConfirm={() =>
          deleting && remove.mutate(deleting.id, { onSuccess: () => setFocusNew((n) => n + 1), onSettled: () => setDeleting(null) })
        }
        onClose={() => setDeleting(null)}
      >
        <p>It comes off every conversation that has it. This cannot be undone.</p>
      </ConfirmDialog>
      <Dialog
        open={editing !== null}
        title={current ? `Edit label ${current.name}` : "New label"}
        onClose={() => {
          save.reset();
          setEditing(null);
        }}
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            save.mutate({
              id: current?.id ?? null,
              body: {
                name: formText(form, "name") ?? "",
                color: formText(form, "color") ?? DEFAULT_COLOR,
                description: formText(form, "description") ?? "",
              },
            });
          }}
        >
          <TextField label="Name" name="name" required maxLength={50} defaultValue={current?.name ?? ""} autoFocus errors={fieldErrors(save.error, "name")} />
          <TextField label="Colour" name="color" type="color" defaultValue={current?.color ?? DEFAULT_COLOR} errors={fieldErrors(save.error, "color")} />
          <TextField
            label="Description"
            name="description"
            maxLength={200}
            hint="Optional: when to use it."
            defaultValue={current?.description ?? ""}
            errors={fieldErrors(save.error, "description")}
          />
          <ErrorMessage error={save.error} />
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save label
          </SubmitButton>
        </form>
      </Dialog>
    </section>
  );
}
