"use client";

// The saved views above the inbox: shared ones (Owners keep them) and the agent's own, each a
// link to the inbox with its filters and the count of what it holds for this agent now, in the
// order their keepers give them (move up and down within the shared or the own ones). "Save
// view" keeps what the inbox shows at the moment (lib/inboxUrl `viewFilters`).

import Link from "next/link";
import { type FormEvent, useState } from "react";
import type { SavedView } from "@/api/types";
import { ConfirmDialog, ErrorMessage, fieldErrors, SubmitButton, TextField, Checkbox } from "@/components/ui";
import { inboxHref, type InboxView, showsView, viewFilters, viewFromFilters } from "@/lib/inboxUrl";
import { moveChanges } from "@/lib/viewOrder";
import { useDeleteView, useMoveView, useSaveView, useViews } from "./useViews";

/** How a count reads: the API counts up to 1,000. */
export function countText(count: number): string {
  return count >= 1000 ? "1000+" : String(count);
}

export function SavedViews({ workspaceId, view, isOwner }: { workspaceId: string; view: InboxView; isOwner: boolean }) {
  const views = useViews(workspaceId);
  const save = useSaveView(workspaceId);
  const remove = useDeleteView(workspaceId);
  const move = useMoveView(workspaceId);
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<SavedView | null>(null);

  const onSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate(
      { name: String(form.get("name") ?? ""), shared: form.get("shared") === "on", filters: viewFilters(view) },
      { onSuccess: () => setSaving(false) },
    );
  };

  const list = views.data?.views ?? [];
  // A view moves among the views of its own kind: the shared ones, or the agent's own.
  const moveBy = (saved: SavedView, delta: -1 | 1) =>
    move.mutate(moveChanges(list.filter((other) => other.shared === saved.shared), saved.id, delta));
  return (
    <section className="saved-views" aria-labelledby="views-heading">
      <div className="saved-views-header">
        <h2 id="views-heading">Views</h2>
        {saving ? null : (
          <button type="button" className="ghost" onClick={() => setSaving(true)} disabled={view.contact !== null} title={view.contact ? "One contact's list is not a view" : undefined}>
            Save view
          </button>
        )}
      </div>
      <ErrorMessage error={views.error} />
      {saving ? (
        <form className="save-view" onSubmit={onSave} aria-label="Save this view">
          <TextField label="View name" name="name" required maxLength={50} autoFocus errors={fieldErrors(save.error, "name")} />
          {isOwner ? <Checkbox label="Share with the workspace" name="shared" /> : null}
          <ErrorMessage error={save.error} />
          <div className="row">
            <SubmitButton pending={save.isPending}>Save</SubmitButton>
            <button
              type="button"
              onClick={() => {
                save.reset();
                setSaving(false);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {list.length > 0 ? (
        <ul className="view-list" aria-label="Saved views">
          {list.map((saved) => {
            const group = list.filter((other) => other.shared === saved.shared);
            const place = group.indexOf(saved);
            return (
              <ViewRow
                key={saved.id}
                saved={saved}
                view={view}
                mayChange={!saved.shared || isOwner}
                first={place === 0}
                last={place === group.length - 1}
                moving={move.isPending}
                onMove={(delta) => moveBy(saved, delta)}
                onDelete={() => setDeleting(saved)}
              />
            );
          })}
        </ul>
      ) : null}
      <ErrorMessage error={move.error} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the view ${deleting?.name ?? ""}?`}
        action="Delete"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSettled: () => setDeleting(null) })}
        onClose={() => setDeleting(null)}
      >
        <p>{deleting?.shared ? "It goes from everyone's list. Its conversations stay as they are." : "Its conversations stay as they are."}</p>
      </ConfirmDialog>
    </section>
  );
}

function ViewRow({
  saved,
  view,
  mayChange,
  first,
  last,
  moving,
  onMove,
  onDelete,
}: {
  saved: SavedView;
  view: InboxView;
  /** Whether this agent keeps the view: their own, or a shared one for an Owner. */
  mayChange: boolean;
  /** First and last of its kind (shared or own): no move past either end. The buttons stay
   * focusable there (`aria-disabled`), so the focus stays on a view moved to an end. */
  first: boolean;
  last: boolean;
  /** A move is being saved: clicks wait for it. */
  moving: boolean;
  onMove: (delta: -1 | 1) => void;
  onDelete: () => void;
}) {
  const target = viewFromFilters(saved.filters);
  const name = (
    <>
      <span className="view-name">{saved.name}</span>
      {saved.shared ? <span className="visually-hidden"> (shared)</span> : null}
      <span className="view-count">
        {" "}
        {countText(saved.count)}
        <span className="visually-hidden">{saved.count === 1 ? " conversation" : " conversations"}</span>
      </span>
    </>
  );
  return (
    <li>
      {target ? (
        <Link href={inboxHref(target, null)} aria-current={showsView(view, saved.filters) ? "page" : undefined}>
          {name}
        </Link>
      ) : (
        // Only a view an integration saved with a filter the inbox cannot read (see viewFromFilters).
        <span className="view-elsewhere" title="Saved with filters the dashboard cannot show">
          {name}
        </span>
      )}
      {mayChange ? (
        <>
          {first && last ? null : (
            <>
              <button type="button" className="ghost icon" aria-label={`Move the view ${saved.name} up`} aria-disabled={first} onClick={() => first || moving || onMove(-1)}>
                ↑
              </button>
              <button type="button" className="ghost icon" aria-label={`Move the view ${saved.name} down`} aria-disabled={last} onClick={() => last || moving || onMove(1)}>
                ↓
              </button>
            </>
          )}
          <button type="button" className="ghost icon" aria-label={`Delete the view ${saved.name}`} onClick={onDelete}>
            ×
          </button>
        </>
      ) : null}
    </li>
  );
}
