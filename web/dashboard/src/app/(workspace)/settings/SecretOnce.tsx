import { type ReactNode, type Ref, useId } from "react";
import { CopyButton } from "@/components/ui";

/**
 * A secret the API shows once: readable, copyable, with a warning, and an optional note on
 * what to do with it (announced with it, and describing the field). `inputRef` lets the
 * caller move the focus to it; `copyLabel` names the copy button (by default "Copy <label>").
 */
export function SecretOnce({
  label,
  secret,
  note,
  inputRef,
  copyLabel,
}: {
  label: string;
  secret: string;
  note?: ReactNode;
  inputRef?: Ref<HTMLInputElement>;
  copyLabel?: string;
}) {
  const noteId = useId();
  return (
    <div className="secret" role="status">
      <label>
        {label} (shown once: copy it now)
        <input ref={inputRef} readOnly value={secret} className="mono" aria-describedby={note ? noteId : undefined} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <CopyButton text={secret} label={copyLabel ?? `Copy ${label.toLowerCase()}`} />
      {note ? (
        <p className="hint" id={noteId}>
          {note}
        </p>
      ) : null}
    </div>
  );
}
