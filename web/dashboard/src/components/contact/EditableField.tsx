"use client";

// A value shown as text with an "Edit" button; editing opens a labelled input (Enter or Save
// saves, Escape or Cancel goes back). An API refusal (409 email taken, 400) is shown on the
// field and the input stays open with what was typed.

import { type FormEvent, useId, useRef, useState } from "react";
import { ApiError, errorDetail } from "@/api/errors";

export function EditableField({
  label,
  value,
  placeholder,
  type = "text",
  onSave,
}: {
  label: string;
  value: string;
  placeholder: string;
  type?: "text" | "email";
  onSave: (value: string) => Promise<void>;
}) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const editRef = useRef<HTMLButtonElement>(null);

  const close = () => {
    setEditing(false);
    setError(null);
    requestAnimationFrame(() => editRef.current?.focus());
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = draft.trim();
    if (next === value) return close();
    setPending(true);
    setError(null);
    try {
      await onSave(next);
      close();
    } catch (e) {
      const apiError = e instanceof ApiError ? e : null;
      const fieldMessage = apiError ? Object.values(apiError.errors).flat()[0] : undefined;
      setError(apiError?.status === 409 ? apiError.detail : (fieldMessage ?? errorDetail(e)));
    } finally {
      setPending(false);
    }
  };

  if (!editing) {
    return (
      <div className="editable">
        <span className="editable-label">{label}</span>
        <span className={value ? "editable-value" : "editable-value muted"}>{value || placeholder}</span>
        <button
          ref={editRef}
          type="button"
          className="link"
          aria-label={`Edit ${label.toLowerCase()}`}
          onClick={() => {
            setDraft(value);
            setEditing(true);
          }}
        >
          Edit
        </button>
      </div>
    );
  }
  return (
    <form className="editable editing" onSubmit={(event) => void submit(event)}>
      <label htmlFor={id} className="editable-label">
        {label}
      </label>
      <input
        id={id}
        type={type}
        value={draft}
        autoFocus
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            close();
          }
        }}
      />
      {error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" disabled={pending} aria-busy={pending || undefined}>
          Save
        </button>
        <button type="button" className="ghost" onClick={close} disabled={pending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
