"use client";

// The day ranges: when conversations were created and when they last changed, each from one
// day to another, both included, in the agent's own calendar (lib/inboxUrl turns them into the
// API's instants). Behind a disclosure, as the list's column is narrow: open from the start when
// the URL holds a range, and its summary says how many are set while it is closed.

import { useState } from "react";
import { TextField } from "@/components/ui";
import type { DayFilter, InboxView } from "@/lib/inboxUrl";
import { isDay } from "@/lib/localDay";

const FIELDS: { name: DayFilter; label: string; min?: DayFilter; max?: DayFilter }[] = [
  { name: "createdFrom", label: "Created from", max: "createdTo" },
  { name: "createdTo", label: "Created to", min: "createdFrom" },
  { name: "updatedFrom", label: "Updated from", max: "updatedTo" },
  { name: "updatedTo", label: "Updated to", min: "updatedFrom" },
];

export function DayFilters({ view, onChange }: { view: InboxView; onChange: (name: DayFilter, day: string | null) => void }) {
  const set = FIELDS.filter((field) => view[field.name] !== null).length;
  const [open, setOpen] = useState(set > 0);
  return (
    <details className="day-filters" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Dates
        {set > 0 ? <span className="muted">{` (${set} set)`}</span> : null}
      </summary>
      <div className="day-fields">
        {FIELDS.map((field) => (
          <DayField
            key={field.name}
            label={field.label}
            value={view[field.name]}
            min={field.min ? view[field.min] : null}
            max={field.max ? view[field.max] : null}
            onChange={(day) => onChange(field.name, day)}
          />
        ))}
      </div>
    </details>
  );
}

/**
 * A date input following the URL. A day typed digit by digit passes through days the URL does
 * not keep (the year 0002 on its way to 2026): the field holds what is typed and hands on only
 * whole days, or nothing when emptied; leaving it shows the day in force again.
 */
function DayField({
  label,
  value,
  min,
  max,
  onChange,
}: {
  label: string;
  value: string | null;
  min: string | null;
  max: string | null;
  onChange: (day: string | null) => void;
}) {
  const [draft, setDraft] = useState(value ?? "");
  const [inForce, setInForce] = useState(value);
  // The URL changed (this field's day handed on, or another control: "Clear filters", a view).
  if (inForce !== value) {
    setInForce(value);
    setDraft(value ?? "");
  }
  return (
    <TextField
      label={label}
      type="date"
      value={draft}
      min={min ?? undefined}
      max={max ?? undefined}
      onChange={(event) => {
        const typed = event.target.value;
        setDraft(typed);
        if (typed === "") onChange(null);
        else if (isDay(typed)) onChange(typed);
      }}
      onBlur={() => setDraft(value ?? "")}
    />
  );
}
