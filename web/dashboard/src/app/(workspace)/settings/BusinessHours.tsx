"use client";

// Settings -> Business hours (Owners): the time zone, each weekday's openings and the holidays
// (`GET|PATCH /api/settings/business-hours`). Outside them the chat widget tells visitors the
// team is away and asks for their email. The form's state, its conversion to the API's
// document and its checks live in `lib/businessHours`; this section shows and edits them.

import { type UseMutationResult, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ComponentPropsWithoutRef, useId, useMemo, useState } from "react";
import { flushSync } from "react-dom";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { BusinessHours } from "@/api/types";
import { useApi } from "@/app/providers";
import { ErrorMessage, fieldErrors, SelectField, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import {
  addHoliday,
  DAY_NAMES,
  type DayHours,
  hasProblems,
  MAX_OPENINGS_PER_DAY,
  type TimeRange,
  timeZoneOptions,
  toDocument,
  toForm,
  validateForm,
} from "@/lib/businessHours";
import { useWorkspace } from "../WorkspaceContext";

type SaveHours = UseMutationResult<BusinessHours, Error, BusinessHours>;

export function BusinessHoursSettings() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const hours = useQuery({
    queryKey: keys.businessHours(workspace.id),
    queryFn: () => unwrap(api.workspace.GET("/api/settings/business-hours")),
  });
  const save = useMutation({
    mutationFn: (body: BusinessHours) => unwrap(api.workspace.PATCH("/api/settings/business-hours", { body })),
    onSuccess: (data) => queryClient.setQueryData(keys.businessHours(workspace.id), data),
  });
  return (
    <section aria-labelledby="business-hours-heading" className="panel">
      <h2 id="business-hours-heading">Business hours</h2>
      <p className="hint">Outside these hours the chat widget tells visitors you&apos;re away and asks for their email.</p>
      <ErrorMessage error={hours.error} />
      {/* Keyed by the stored hours: the form starts again from what the API answered. */}
      {hours.data ? <BusinessHoursForm key={JSON.stringify(hours.data)} stored={hours.data} save={save} /> : null}
    </section>
  );
}

function BusinessHoursForm({ stored, save }: { stored: BusinessHours; save: SaveHours }) {
  const id = useId();
  const [form, setForm] = useState(() => toForm(stored));
  const [triedToSave, setTriedToSave] = useState(false);
  const [newHoliday, setNewHoliday] = useState("");
  const [holidayError, setHolidayError] = useState<string | null>(null);
  const zones = useMemo(() => timeZoneOptions(Intl.supportedValuesOf("timeZone"), stored.timeZone), [stored.timeZone]);
  const problems = validateForm(form);
  const ids = {
    zoneHint: `${id}-zone-hint`,
    zoneErrors: `${id}-zone-errors`,
    weekly: `${id}-weekly`,
    midnightHint: `${id}-midnight`,
    holidays: `${id}-holidays`,
    holidayInput: `${id}-holiday`,
  };
  const zoneErrors = fieldErrors(save.error, "timeZone");
  const weeklyErrors = fieldErrors(save.error, "weekly");
  const holidayErrors = fieldErrors(save.error, "holidays");

  const changeDay = (hours: DayHours) => setForm((current) => ({ ...current, days: current.days.map((day) => (day.day === hours.day ? hours : day)) }));
  const addNewHoliday = () => {
    const added = addHoliday(form.holidays, newHoliday);
    if ("error" in added) {
      setHolidayError(added.error);
      return;
    }
    setForm({ ...form, holidays: added.holidays });
    setNewHoliday("");
    setHolidayError(null);
  };
  const removeHoliday = (date: string) => {
    setForm({ ...form, holidays: form.holidays.filter((holiday) => holiday !== date) });
    // The button goes with its date: the focus goes to where holidays are added.
    document.getElementById(ids.holidayInput)?.focus();
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        setTriedToSave(true);
        if (!hasProblems(problems)) save.mutate(toDocument(form));
      }}
    >
      <SelectField
        label="Time zone"
        value={form.timeZone}
        onChange={(event) => setForm({ ...form, timeZone: event.target.value })}
        aria-describedby={[ids.zoneHint, zoneErrors.length ? ids.zoneErrors : null].filter(Boolean).join(" ")}
        aria-invalid={zoneErrors.length > 0 || undefined}
      >
        {zones.map((zone) => (
          <option key={zone} value={zone}>
            {zone}
          </option>
        ))}
      </SelectField>
      <p className="hint" id={ids.zoneHint}>
        The hours and holidays are times and days in this time zone.
      </p>
      {zoneErrors.length ? (
        <p className="field-error" id={ids.zoneErrors}>
          {zoneErrors.join("; ")}
        </p>
      ) : null}

      <h3 id={ids.weekly}>Weekly hours</h3>
      <div className="week" role="group" aria-labelledby={ids.weekly}>
        {form.days.map((hours) => (
          <WeekDay
            key={hours.day}
            hours={hours}
            problems={triedToSave ? (problems[hours.day] ?? []) : []}
            idPrefix={`${id}-${hours.day}`}
            midnightHintId={ids.midnightHint}
            onChange={changeDay}
          />
        ))}
      </div>
      <p className="hint" id={ids.midnightHint}>
        A day that closes at midnight (00:00, or 12:00 AM) stays open to its end. Hours past midnight go on the next day.
      </p>
      {weeklyErrors.length ? <p className="field-error">{weeklyErrors.join("; ")}</p> : null}

      <h3 id={ids.holidays}>Holidays</h3>
      <p className="hint">Closed all day.</p>
      {form.holidays.length ? (
        <ul className="holiday-list" aria-labelledby={ids.holidays}>
          {form.holidays.map((date) => (
            <li key={date}>
              <time dateTime={date}>{date}</time>
              <button type="button" className="ghost" aria-label={`Remove ${date}`} onClick={() => removeHoliday(date)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No holidays.</p>
      )}
      {holidayErrors.length ? <p className="field-error">{holidayErrors.join("; ")}</p> : null}
      <div className="inline-form holiday-add">
        <TextField
          id={ids.holidayInput}
          label="Holiday"
          type="date"
          value={newHoliday}
          onChange={(event) => setNewHoliday(event.target.value)}
          onKeyDown={(event) => {
            // Enter adds the date rather than saving the whole form.
            if (event.key === "Enter") {
              event.preventDefault();
              addNewHoliday();
            }
          }}
          errors={holidayError ? [holidayError] : []}
        />
        <button type="button" onClick={addNewHoliday}>
          Add holiday
        </button>
      </div>

      {triedToSave && hasProblems(problems) ? (
        <p className="error" role="alert">
          Fix the weekly hours marked above before saving.
        </p>
      ) : null}
      <ErrorMessage error={save.error} />
      {save.isSuccess ? <StatusMessage>Business hours saved.</StatusMessage> : null}
      <SubmitButton pending={save.isPending} pendingText="Saving…">
        Save business hours
      </SubmitButton>
    </form>
  );
}

/** One weekday: its "Open" box, then its openings (or "Closed") and what is wrong with them. */
function WeekDay({
  hours,
  problems,
  idPrefix,
  midnightHintId,
  onChange,
}: {
  hours: DayHours;
  problems: string[];
  idPrefix: string;
  midnightHintId: string;
  onChange: (hours: DayHours) => void;
}) {
  const name = DAY_NAMES[hours.day];
  const nameId = `${idPrefix}-name`;
  const openId = `${idPrefix}-open`;
  const problemsId = `${idPrefix}-problems`;
  const opensId = (index: number) => `${idPrefix}-opens-${index}`;
  const invalid = problems.length > 0 || undefined;
  const described = (...ids: string[]) => [...ids, ...(problems.length ? [problemsId] : [])].join(" ") || undefined;
  const setRange = (index: number, range: TimeRange) => onChange({ ...hours, ranges: hours.ranges.map((r, i) => (i === index ? range : r)) });
  const removeRange = (index: number) => {
    onChange({ ...hours, ranges: hours.ranges.filter((_, i) => i !== index) });
    // The first opening stays: the focus goes there from the removed one's button.
    document.getElementById(opensId(0))?.focus();
  };
  const addRange = () => {
    flushSync(() => onChange({ ...hours, ranges: [...hours.ranges, { opens: "", closes: "" }] }));
    document.getElementById(opensId(hours.ranges.length))?.focus();
  };
  return (
    <div className="week-day" role="group" aria-labelledby={nameId}>
      <span className="week-day-name" id={nameId}>
        {name}
      </span>
      <div className="checkbox">
        <input id={openId} type="checkbox" checked={hours.open} onChange={(event) => onChange({ ...hours, open: event.target.checked })} />
        <label htmlFor={openId}>
          Open<span className="visually-hidden"> on {name}</span>
        </label>
      </div>
      <div className="week-day-openings">
        {hours.open ? (
          <>
            {hours.ranges.map((range, index) => {
              // A day's second and later openings are told apart by their number.
              const which = index === 0 ? ` on ${name}` : ` on ${name}, opening ${index + 1}`;
              return (
                <div className="opening" key={index}>
                  <TimeInput
                    id={opensId(index)}
                    label="Opens"
                    hiddenLabel={which}
                    value={range.opens}
                    onChange={(event) => setRange(index, { ...range, opens: event.target.value })}
                    aria-invalid={invalid}
                    aria-describedby={described()}
                  />
                  <TimeInput
                    id={`${idPrefix}-closes-${index}`}
                    label="Closes"
                    hiddenLabel={which}
                    value={range.closes}
                    onChange={(event) => setRange(index, { ...range, closes: event.target.value })}
                    aria-invalid={invalid}
                    aria-describedby={described(midnightHintId)}
                  />
                  {hours.ranges.length > 1 ? (
                    <button type="button" className="ghost" aria-label={`Remove opening ${index + 1} on ${name}`} onClick={() => removeRange(index)}>
                      Remove
                    </button>
                  ) : null}
                  {index === hours.ranges.length - 1 && hours.ranges.length < MAX_OPENINGS_PER_DAY ? (
                    <button type="button" className="ghost" aria-label={`Add hours on ${name}`} onClick={addRange}>
                      Add hours
                    </button>
                  ) : null}
                </div>
              );
            })}
          </>
        ) : (
          <span className="muted">Closed</span>
        )}
        {problems.length ? (
          <p className="field-error" id={problemsId}>
            {problems.join(" ")}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** A time input with its label; `hiddenLabel` is read out after it (which day, which opening). */
function TimeInput({ id, label, hiddenLabel, ...input }: ComponentPropsWithoutRef<"input"> & { id: string; label: string; hiddenLabel: string }) {
  return (
    <span className="opening-time">
      <label htmlFor={id}>
        {label}
        <span className="visually-hidden">{hiddenLabel}</span>
      </label>
      <input id={id} type="time" {...input} />
    </span>
  );
}
