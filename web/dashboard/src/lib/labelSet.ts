// A conversation's labels as the current label set shows them: each by its id, with the set's
// name and colour (renamed or recoloured since the conversation was read), dropped when the
// set no longer has it (deleted); the conversation's own copy while the set is not read yet.
// And a readable text colour on a label's background.

import type { Label, LabelRef } from "@/api/types";

export function currentLabels(refs: readonly LabelRef[], set: readonly Label[] | undefined): LabelRef[] {
  if (!set) return [...refs];
  const byId = new Map(set.map((label) => [label.id, label]));
  return refs.flatMap((ref) => {
    const label = byId.get(ref.id);
    return label ? [{ id: label.id, name: label.name, color: label.color }] : [];
  });
}

/** Black or white, whichever reads better on `#rrggbb` (WCAG relative luminance). */
export function textOn(color: string): "#000000" | "#ffffff" {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return "#000000";
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  // Contrast with white is 1.05 / (L + 0.05), with black (L + 0.05) / 0.05: pick the larger.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? "#ffffff" : "#000000";
}

/** The set of ids after ticking (`on`) or unticking one. */
export function toggled(ids: readonly string[], id: string, on: boolean): string[] {
  const without = ids.filter((x) => x !== id);
  return on ? [...without, id] : without;
}
