"use client";

// The workspace's canned responses: listed, written and edited in a dialog, deleted after a
// confirmation (the focus then goes to "New canned response", the row being gone). The editor warns about placeholders that can come out empty (a visitor without
// a name) and adds the fallback in one click (see lib/placeholders).

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { CannedResponse } from "@/api/types";
import { ConfirmDialog, Dialog, ErrorMessage, fieldErrors, formText, SubmitButton, TextArea, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { addFallbacks, barePlaceholders, DEFAULT_FALLBACK } from "@/lib/placeholders";
import { useWorkspace } from "../WorkspaceContext";

export function CannedResponses() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.canned(workspace.id, ""),
    queryFn: () => unwrap(api.workspace.GET("/api/canned-responses", { params: { query: { limit: 200 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.allCanned(workspace.id) });
  const [editing, setEditing] = useState<CannedResponse | "new" | null>(null);
  const [deleting, setDeleting] = useState<CannedResponse | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const [focusNew, setFocusNew] = useState(0);
  useEffect(() => {
    if (focusNew) newButton.current?.focus();
  }, [focusNew]);
  const save = useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: { shortCode: string; title: string; body: string } }) =>
      id
        ? unwrap(api.workspace.PATCH("/api/canned-responses/{id}", { params: { path: { id } }, body }))
        : unwrap(api.workspace.POST("/api/canned-responses", { body })),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/canned-responses/{id}", { params: { path: { id } } })),
    onSuccess: () => void refresh(),
  });
  const current = editing === "new" ? null : editing;
  return (
    <section aria-labelledby="canned-heading" className="panel">
      <h2 id="canned-heading">Canned responses</h2>
      <p className="hint">
        Agents insert them by typing / and the short code. The body may use {"{{contact.name}}"}, {"{{agent.displayName}}"} and{" "}
        {"{{workspace.name}}"}. A visitor who gave no name has an empty {"{{contact.name}}"}: write{" "}
        <code>{`{{contact.name | fallback: "${DEFAULT_FALLBACK}"}}`}</code> to say &ldquo;{DEFAULT_FALLBACK}&rdquo; instead.
      </p>
      <button type="button" ref={newButton} onClick={() => setEditing("new")}>
        New canned response
      </button>
      <ErrorMessage error={list.error ?? remove.error} />
      {list.data && list.data.cannedResponses.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Short code</th>
              <th scope="col">Title</th>
              <th scope="col">Body</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.cannedResponses.map((r) => (
              <tr key={r.id}>
                <th scope="row" className="mono">
                  /{r.shortCode}
                </th>
                <td>{r.title}</td>
                <td className="clip">{r.body}</td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(r)} aria-label={`Edit /${r.shortCode}`}>
                    Edit
                  </button>
                  <button type="button" className="danger" onClick={() => setDeleting(r)} aria-label={`Delete /${r.shortCode}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.isSuccess ? (
        <p className="muted">No canned responses yet.</p>
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete /${deleting?.shortCode ?? ""}?`}
        action="Delete"
        pending={remove.isPending}
        onConfirm={() =>
          deleting && remove.mutate(deleting.id, { onSuccess: () => setFocusNew((n) => n + 1), onSettled: () => setDeleting(null) })
        }
        onClose={() => setDeleting(null)}
      >
        <p>Agents can no longer insert it. This cannot be undone.</p>
      </ConfirmDialog>
      <Dialog
        open={editing !== null}
        title={current ? `Edit /${current.shortCode}` : "New canned response"}
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
              body: { shortCode: formText(form, "shortCode") ?? "", title: formText(form, "title") ?? "", body: String(form.get("body") ?? "") },
            });
          }}
        >
          <TextField label="Short code" name="shortCode" required defaultValue={current?.shortCode ?? ""} autoFocus errors={fieldErrors(save.error, "shortCode")} />
          <TextField label="Title" name="title" required defaultValue={current?.title ?? ""} errors={fieldErrors(save.error, "title")} />
          <BodyEditor key={current?.id ?? "new"} initial={current?.body ?? ""} errors={fieldErrors(save.error, "body")} />
          <ErrorMessage error={save.error} />
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save canned response
          </SubmitButton>
        </form>
      </Dialog>
    </section>
  );
}

/** The body, with a warning (and its one-click fix) while a placeholder can come out empty. */
function BodyEditor({ initial, errors }: { initial: string; errors: string[] }) {
  const [body, setBody] = useState(initial);
  const bare = barePlaceholders(body);
  return (
    <>
      <TextArea label="Body" name="body" required rows={5} value={body} onChange={(event) => setBody(event.target.value)} errors={errors} />
      <div aria-live="polite">
        {bare.length > 0 ? (
          <div className="placeholder-warning">
            <p>
              <strong>{bare.length === 1 ? "A placeholder can be empty" : `${bare.length} placeholders can be empty`}:</strong>{" "}
              {bare[0]?.text} has no value for a visitor who gave no name, so the reply would read &ldquo;Hi ,&rdquo;. A fallback
              is used then: <code>{`{{contact.name | fallback: "${DEFAULT_FALLBACK}"}}`}</code> reads &ldquo;Hi {DEFAULT_FALLBACK},&rdquo;.
            </p>
            <button type="button" onClick={() => setBody(addFallbacks(body))}>
              Add fallback &ldquo;{DEFAULT_FALLBACK}&rdquo;
            </button>
          </div>
        ) : null}
      </div>
    </>
  );
}
