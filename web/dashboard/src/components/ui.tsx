"use client";

// Small accessible building blocks: every control has a visible label, errors are announced
// (role="alert") and tied to their field (aria-describedby), status text uses role="status".

import {
  type ComponentPropsWithoutRef,
  type ReactNode,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { ApiError, errorDetail } from "@/api/errors";
import type { Contact } from "@/api/types";
import { contactEmails } from "@/lib/format";

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorDetail(error)}
    </p>
  );
}

/** Announced politely: a success ("saved"), or with `tone="notice"` something to know (access ended). */
export function StatusMessage({ children, tone = "success" }: { children: ReactNode; tone?: "success" | "notice" }) {
  if (!children) return null;
  return (
    <p className={tone === "notice" ? "notice" : "status-message"} role="status">
      {children}
    </p>
  );
}

/** The API's validation messages for one field, from a 400's `errors`. */
export function fieldErrors(error: unknown, field: string): string[] {
  return error instanceof ApiError ? (error.errors[field] ?? []) : [];
}

type InputProps = ComponentPropsWithoutRef<"input"> & {
  label: string;
  hint?: ReactNode;
  errors?: string[];
};

export function TextField({ label, hint, errors = [], id, className, ...input }: InputProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hint ? hintId : null, errors.length ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field ${className ?? ""}`}>
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-describedby={describedBy} aria-invalid={errors.length > 0 || undefined} {...input} />
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {errors.length ? (
        <p className="field-error" id={errorId}>
          {errors.join("; ")}
        </p>
      ) : null}
    </div>
  );
}

/** The API's password rule, as people read it. */
export const PASSWORD_RULE = "At least 8 characters, with an upper-case letter, a lower-case letter and a digit.";

/** A new password (register, join, reset), named `password`, with the rule as its hint. */
export function NewPasswordField({ label = "Password", errors }: { label?: string; errors?: string[] }) {
  return (
    <TextField
      label={label}
      name="password"
      type="password"
      autoComplete="new-password"
      required
      minLength={8}
      hint={PASSWORD_RULE}
      errors={errors}
    />
  );
}

type TextAreaProps = ComponentPropsWithoutRef<"textarea"> & { label: string; hint?: ReactNode; errors?: string[] };

export function TextArea({ label, hint, errors = [], id, ...textarea }: TextAreaProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <textarea id={inputId} aria-describedby={hint ? hintId : undefined} aria-invalid={errors.length > 0 || undefined} {...textarea} />
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {errors.length ? <p className="field-error">{errors.join("; ")}</p> : null}
    </div>
  );
}

type SelectProps = ComponentPropsWithoutRef<"select"> & { label: string; children: ReactNode; hideLabel?: boolean };

/** A labelled select; `hideLabel` keeps the label for assistive technology only (in tables, where the column says it). */
export function SelectField({ label, id, children, hideLabel, ...select }: SelectProps) {
  const generated = useId();
  const selectId = id ?? generated;
  return (
    <div className="field">
      <label htmlFor={selectId} className={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      <select id={selectId} {...select}>
        {children}
      </select>
    </div>
  );
}

export function Checkbox({ label, ...input }: ComponentPropsWithoutRef<"input"> & { label: string }) {
  const id = useId();
  return (
    <div className="checkbox">
      <input id={id} type="checkbox" {...input} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

export function SubmitButton({
  pending,
  children,
  pendingText,
  disabled,
  ...button
}: ComponentPropsWithoutRef<"button"> & { pending: boolean; pendingText?: string }) {
  // `disabled` is taken out of the spread: a caller's `false` must not lift the pending lock,
  // or a second click submits twice.
  return (
    <button type="submit" {...button} disabled={pending || disabled} aria-busy={pending || undefined}>
      {pending && pendingText ? pendingText : children}
    </button>
  );
}

/** A presence dot with its word: colour is never the only signal. */
export function PresenceBadge({ presence }: { presence: "online" | "offline" }) {
  return (
    <span className={`presence presence-${presence}`}>
      <span className="dot" aria-hidden="true" />
      {presence}
    </span>
  );
}

/**
 * A contact's email as agents should read it. An address the visitor only typed carries an
 * "unverified" badge, in words rather than colour, so that it is never taken for a known
 * customer's address.
 */
export function ContactEmail({ contact }: { contact: Contact }) {
  const emails = contactEmails(contact);
  if (!emails.length) return null;
  return (
    <span className="contact-email">
      {emails.map(({ address, claimed }) => (
        <span key={`${claimed}-${address}`} className={claimed ? "claimed-email" : undefined}>
          {address}
          {claimed ? (
            <span className="badge badge-unverified">
              unverified<span className="visually-hidden">: typed by the visitor, not confirmed</span>
            </span>
          ) : null}
        </span>
      ))}
    </span>
  );
}

/** Copies text to the clipboard and says so; falls back to selecting it. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (copied === "idle") return;
    const timer = setTimeout(() => setCopied("idle"), 2500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setCopied("copied"),
            () => setCopied("failed"),
          );
        }}
      >
        {label}
      </button>
      <span role="status" className="copy-status">
        {copied === "copied" ? "Copied" : copied === "failed" ? "Could not copy; select the text and copy it" : ""}
      </span>
    </>
  );
}

/**
 * A modal dialog on the native <dialog>: focus moves into it, Tab stays inside, Escape
 * closes it, and focus returns to what opened it.
 */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      return () => {
        if (dialog.open) dialog.close();
        opener?.focus();
      };
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className="dialog"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <div className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="ghost" onClick={onClose}>
              Close
            </button>
          </div>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/**
 * Asks before an action that cannot be undone or that cuts someone off: the action runs only
 * from the dialog's own button, which names it; Cancel, Close and Escape leave everything as
 * it was.
 */
export function ConfirmDialog({
  open,
  title,
  action,
  pending,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  /** The confirming button's text, e.g. "Revoke". */
  action: string;
  pending: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      {children}
      <div className="row">
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          {action}
        </button>
        <button type="button" onClick={onClose} disabled={pending}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A form's text value, trimmed; null when empty. */
export function formText(form: FormData, name: string): string | null {
  const value = form.get(name);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed ? trimmed : null;
}
