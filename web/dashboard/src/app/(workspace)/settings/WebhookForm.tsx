"use client";

// An endpoint's URL, description and event types, as added and as edited. The event types
// are checkboxes for the catalogue and "All events" (`["*"]`, types added later included),
// which stands for them all while it is ticked. The API checks everything: its messages
// show beside their fields, and the focus goes to the first field it refused; a workspace
// at its endpoint limit (409 `webhook_limit`) is said plainly.

import { useEffect, useId, useState } from "react";
import { ApiError } from "@/api/errors";
import type { Webhook } from "@/api/types";
import { ErrorMessage, fieldErrors, SubmitButton, TextField } from "@/components/ui";
import { ALL_EVENTS, EVENT_TYPES, selectionFromTypes, toggleType, typesFromSelection, type TypeSelection } from "@/lib/webhooks";

export interface WebhookFormValues {
  url: string;
  description: string;
  eventTypes: string[];
}

export function WebhookForm({
  initial,
  error,
  pending,
  submitLabel,
  onSubmit,
}: {
  initial: Webhook | null;
  error: unknown;
  pending: boolean;
  submitLabel: string;
  onSubmit: (values: WebhookFormValues) => void;
}) {
  const [selection, setSelection] = useState<TypeSelection>(() => selectionFromTypes(initial?.eventTypes ?? []));
  const urlId = useId();
  const descriptionId = useId();
  const typesHintId = useId();
  const typesErrorId = useId();
  const firstTypeId = useId();
  const urlErrors = fieldErrors(error, "url");
  const descriptionErrors = fieldErrors(error, "description");
  const typeErrors = fieldErrors(error, "eventTypes");
  const atLimit = error instanceof ApiError && error.code === "webhook_limit";

  // After a refusal, the focus goes to the first field the API named.
  useEffect(() => {
    if (!(error instanceof ApiError) || Object.keys(error.errors).length === 0) return;
    const target = error.errors.url ? urlId : error.errors.description ? descriptionId : error.errors.eventTypes ? firstTypeId : null;
    if (target) document.getElementById(target)?.focus();
  }, [error, urlId, descriptionId, firstTypeId]);

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => {
          const value = form.get(name);
          return typeof value === "string" ? value.trim() : "";
        };
        onSubmit({ url: text("url"), description: text("description"), eventTypes: typesFromSelection(selection) });
      }}
    >
      <TextField
        id={urlId}
        label="Endpoint URL"
        name="url"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        required
        defaultValue={initial?.url ?? ""}
        placeholder="https://hooks.example.com/support"
        hint="Each event is sent to it as a signed POST request."
        errors={urlErrors}
      />
      <TextField
        id={descriptionId}
        label="Description"
        name="description"
        autoComplete="off"
        maxLength={500}
        defaultValue={initial?.description ?? ""}
        hint="Optional: what the endpoint is for, e.g. “CRM sync”."
        errors={descriptionErrors}
      />
      <fieldset className="event-types" aria-describedby={[typesHintId, typeErrors.length ? typesErrorId : null].filter(Boolean).join(" ")}>
        <legend>Event types</legend>
        <p className="hint" id={typesHintId}>
          The events sent to this endpoint. &ldquo;All events&rdquo; includes types added to Support Desk later.
        </p>
        <EventTypeBox
          id={firstTypeId}
          label="All events"
          description="Every event type, now and later."
          checked={selection.all}
          onChange={(checked) => setSelection((s) => toggleType(s, ALL_EVENTS, checked))}
        />
        <div className="event-type-list">
          {EVENT_TYPES.map(({ type, description }) => (
            <EventTypeBox
              key={type}
              label={type}
              mono
              description={description}
              checked={selection.all || selection.types.has(type)}
              disabled={selection.all}
              onChange={(checked) => setSelection((s) => toggleType(s, type, checked))}
            />
          ))}
        </div>
        {typeErrors.length ? (
          <p className="field-error" id={typesErrorId}>
            {typeErrors.join("; ")}
          </p>
        ) : null}
      </fieldset>
      {atLimit ? (
        <div className="error limit-reached" role="alert">
          <strong>Endpoint limit reached</strong> — {error.detail}
        </div>
      ) : (
        <ErrorMessage error={error} />
      )}
      <SubmitButton pending={pending} pendingText="Saving…">
        {submitLabel}
      </SubmitButton>
    </form>
  );
}

function EventTypeBox({
  id,
  label,
  description,
  checked,
  disabled,
  mono,
  onChange,
}: {
  id?: string;
  label: string;
  description: string;
  checked: boolean;
  disabled?: boolean;
  mono?: boolean;
  onChange: (checked: boolean) => void;
}) {
  const generated = useId();
  const inputId = id ?? generated;
  const descriptionId = `${inputId}-description`;
  return (
    <div className="checkbox event-type">
      <input id={inputId} type="checkbox" checked={checked} disabled={disabled} aria-describedby={descriptionId} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={inputId} className={mono ? "mono" : undefined}>
        {label}
      </label>
      <p className="hint" id={descriptionId}>
        {description}
      </p>
    </div>
  );
}
