"use client";

import { type ReactNode, useId } from "react";

/** A checkbox with a line of help under it, read out with it (`aria-describedby`). */
export function PreferenceCheckbox({ name, label, hint, defaultChecked }: { name: string; label: string; hint: ReactNode; defaultChecked: boolean }) {
  const id = useId();
  return (
    <div className="checkbox preference">
      <input id={id} type="checkbox" name={name} defaultChecked={defaultChecked} aria-describedby={`${id}-hint`} />
      <label htmlFor={id}>{label}</label>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}
