// A conversation's labels as small coloured chips, in a list named for screen readers.

import type { LabelRef } from "@/api/types";
import { textOn } from "@/lib/labelSet";

export function LabelChips({ labels }: { labels: readonly LabelRef[] }) {
  if (labels.length === 0) return null;
  return (
    <ul className="label-chips" aria-label="Labels">
      {labels.map((label) => (
        <li key={label.id} className="label-chip" style={{ background: label.color, color: textOn(label.color) }}>
          {label.name}
        </li>
      ))}
    </ul>
  );
}
