"use client";

// Webhooks: the endpoints Support Desk sends the workspace's events to. Each shows its URL,
// description, event types and how delivery to it goes ("Healthy", "Failing since …",
// "Disabled — …"). An endpoint is added and edited in a dialog (WebhookForm), enabled and
// disabled, sent a test event, deleted and its secret rotated after a confirmation; its
// delivery log opens below it (DeliveryLog). The signing secret is shown once, beside its
// endpoint, when the endpoint is added or its secret rotated, and the focus goes to it.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Webhook } from "@/api/types";
import { useApi } from "@/app/providers";
import { ConfirmDialog, Dialog, ErrorMessage, formatTime } from "@/components/ui";
import { eventTypesLabel, previousSecretUntil, webhookName, webhookStateText } from "@/lib/webhooks";
import { useWorkspace } from "../WorkspaceContext";
import { DeliveryLog } from "./DeliveryLog";
import { SecretOnce } from "./SecretOnce";
import { WebhookForm, type WebhookFormValues } from "./WebhookForm";

interface WebhookList {
  webhooks: Webhook[];
}

/** A secret to show once, beside its endpoint: a new endpoint's, or a rotation's. */
interface ShownSecret {
  webhookId: string;
  kind: "created" | "rotated";
  secret: string;
  /** When it was made (a rotation's overlap runs 24 h from it). */
  at: number;
}

export function Webhooks() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const listKey = keys.webhooks(workspace.id);
  const list = useQuery({ queryKey: listKey, queryFn: () => unwrap(api.workspace.GET("/api/webhooks")) });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [asking, setAsking] = useState<{ action: "delete" | "rotate"; webhook: Webhook } | null>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  // What the last action did, announced beside its endpoint (or in the section when it is gone).
  const [notice, setNotice] = useState<{ webhookId: string | null; text: string } | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const [focusAdd, setFocusAdd] = useState(0);
  useEffect(() => {
    if (focusAdd) addButton.current?.focus();
  }, [focusAdd]);

  const update = (change: (webhooks: Webhook[]) => Webhook[]) =>
    queryClient.setQueryData<WebhookList>(listKey, (old) => (old ? { webhooks: change(old.webhooks) } : old));
  const replace = (webhook: Webhook) => update((all) => all.map((w) => (w.id === webhook.id ? webhook : w)));
  const refresh = () => queryClient.invalidateQueries({ queryKey: listKey });

  // Secrets are shown once: the mutations that return one are dropped from TanStack's mutation
  // cache as soon as this section unmounts (gcTime 0).
  const create = useMutation({
    gcTime: 0,
    mutationFn: (values: WebhookFormValues) => unwrap(api.workspace.POST("/api/webhooks", { body: values })),
    onSuccess: (created) => {
      const { secret: value, ...webhook } = created;
      update((all) => [...all.filter((w) => w.id !== webhook.id), webhook]);
      setSecret({ webhookId: webhook.id, kind: "created", secret: value, at: Date.now() });
      setNotice({ webhookId: webhook.id, text: "Endpoint added: it receives the events from now on." });
      setAdding(false);
      void refresh();
    },
  });
  const edit = useMutation({
    mutationFn: ({ id, values }: { id: string; values: WebhookFormValues }) =>
      unwrap(api.workspace.PATCH("/api/webhooks/{id}", { params: { path: { id } }, body: values })),
    onSuccess: (webhook) => {
      replace(webhook);
      setNotice({ webhookId: webhook.id, text: "Endpoint saved." });
      setEditing(null);
    },
  });
  const rotate = useMutation({
    gcTime: 0,
    mutationFn: (id: string) => unwrap(api.workspace.POST("/api/webhooks/{id}/rotate-secret", { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/webhooks/{id}", { params: { path: { id } } })),
  });

  const webhooks = list.data?.webhooks ?? [];
  return (
    <section aria-labelledby="webhooks-heading" className="panel">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="hint">
        Support Desk sends each event to your endpoints as it happens: a signed POST request (Standard Webhooks), in order, retried when the
        receiver fails. An endpoint that answers 410 Gone, or fails for five days, is disabled.
      </p>
      <button type="button" ref={addButton} onClick={() => setAdding(true)}>
        Add endpoint
      </button>
      <ErrorMessage error={list.error ?? rotate.error ?? remove.error} />
      <p role="status" className="status-message">
        {notice && notice.webhookId === null ? notice.text : null}
      </p>
      {list.isPending && !list.isError ? <p role="status">Loading webhook endpoints…</p> : null}
      {list.isSuccess && webhooks.length === 0 ? <p className="muted">No webhook endpoints.</p> : null}
      {webhooks.length > 0 ? (
        <ul className="webhook-list" aria-label="Webhook endpoints">
          {webhooks.map((webhook) => (
            <EndpointCard
              key={webhook.id}
              webhook={webhook}
              secret={secret?.webhookId === webhook.id ? secret : null}
              dialogOpen={adding || editing !== null || asking !== null}
              notice={notice?.webhookId === webhook.id ? notice.text : ""}
              onNotice={(text) => setNotice({ webhookId: webhook.id, text })}
              onChanged={replace}
              onEdit={() => {
                edit.reset();
                setEditing(webhook);
              }}
              onDelete={() => setAsking({ action: "delete", webhook })}
              onRotate={() => setAsking({ action: "rotate", webhook })}
            />
          ))}
        </ul>
      ) : null}

      <Dialog
        open={adding}
        title="Add a webhook endpoint"
        onClose={() => {
          create.reset();
          setAdding(false);
        }}
      >
        <WebhookForm initial={null} error={create.error} pending={create.isPending} submitLabel="Add endpoint" onSubmit={(values) => create.mutate(values)} />
      </Dialog>
      <Dialog
        open={editing !== null}
        title={`Edit ${editing ? webhookName(editing) : "endpoint"}`}
        onClose={() => {
          edit.reset();
          setEditing(null);
        }}
      >
        {editing ? (
          <WebhookForm
            key={editing.id}
            initial={editing}
            error={edit.error}
            pending={edit.isPending}
            submitLabel="Save endpoint"
            onSubmit={(values) => edit.mutate({ id: editing.id, values })}
          />
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={asking !== null}
        title={asking?.action === "delete" ? `Delete ${webhookName(asking.webhook)}?` : `Rotate the secret of ${asking ? webhookName(asking.webhook) : ""}?`}
        action={asking?.action === "delete" ? "Delete endpoint" : "Rotate secret"}
        pending={rotate.isPending || remove.isPending}
        onConfirm={() => {
          if (!asking) return;
          const { webhook } = asking;
          if (asking.action === "delete") {
            remove.mutate(webhook.id, {
              onSuccess: () => {
                update((all) => all.filter((w) => w.id !== webhook.id));
                queryClient.removeQueries({ queryKey: keys.webhookDeliveries(workspace.id, webhook.id) });
                if (secret?.webhookId === webhook.id) setSecret(null);
                setNotice({ webhookId: null, text: `Endpoint ${webhook.url} deleted.` });
                setAsking(null);
                // Its card is gone: the focus goes back to "Add endpoint".
                setFocusAdd((n) => n + 1);
                void refresh();
              },
              onError: () => setAsking(null),
            });
          } else {
            rotate.mutate(webhook.id, {
              onSuccess: (rotated) => {
                setSecret({ webhookId: webhook.id, kind: "rotated", secret: rotated.secret, at: Date.now() });
                setNotice({ webhookId: webhook.id, text: "Secret rotated." });
                setAsking(null);
              },
              onError: () => setAsking(null),
            });
          }
        }}
        onClose={() => setAsking(null)}
      >
        {asking?.action === "delete" ? (
          <p>
            Events are no longer sent to <span className="mono">{asking.webhook.url}</span>, and its delivery log is deleted. This cannot be undone.
          </p>
        ) : (
          <p>
            A new signing secret is made and shown once. The current secret keeps signing deliveries beside the new one for 24 hours (each
            delivery then carries both signatures), so the receiver can switch to the new secret without missing a delivery.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function EndpointCard({
  webhook,
  secret,
  dialogOpen,
  notice,
  onNotice,
  onChanged,
  onEdit,
  onDelete,
  onRotate,
}: {
  webhook: Webhook;
  secret: ShownSecret | null;
  /** Whether one of the section's dialogs is open (it has the focus until it closes). */
  dialogOpen: boolean;
  notice: string;
  onNotice: (text: string) => void;
  onChanged: (webhook: Webhook) => void;
  onEdit: () => void;
  onDelete: () => void;
  onRotate: () => void;
}) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const headingId = useId();
  const logId = useId();
  const logHeadingId = useId();
  const [logOpen, setLogOpen] = useState(false);
  const secretInput = useRef<HTMLInputElement>(null);
  const focusedSecret = useRef<string | null>(null);
  const name = webhookName(webhook);
  const shown = secret?.secret;
  // A secret just shown takes the focus, once, when the dialog that asked for it has closed
  // (closing gives the focus back to what opened the dialog, in the same commit or earlier).
  useEffect(() => {
    if (!shown || dialogOpen || focusedSecret.current === shown) return;
    focusedSecret.current = shown;
    secretInput.current?.focus();
  }, [shown, dialogOpen]);

  const toggle = useMutation({
    mutationFn: (enabled: boolean) => unwrap(api.workspace.PATCH("/api/webhooks/{id}", { params: { path: { id: webhook.id } }, body: { enabled } })),
    onSuccess: (updated) => {
      onChanged(updated);
      onNotice(updated.enabled ? "Endpoint enabled." : "Endpoint disabled: no events are sent to it until it is enabled again.");
    },
  });
  const test = useMutation({
    mutationFn: () => unwrap(api.workspace.POST("/api/webhooks/{id}/test", { params: { path: { id: webhook.id } } })),
    onSuccess: () => {
      onNotice("Test event queued: it shows in the delivery log.");
      void queryClient.invalidateQueries({ queryKey: keys.webhookDeliveries(workspace.id, webhook.id) });
    },
  });

  return (
    <li className="webhook">
      <article aria-labelledby={headingId}>
        <h3 id={headingId} className="webhook-url mono">
          {webhook.url}
        </h3>
        {webhook.description ? <p className="webhook-description">{webhook.description}</p> : null}
        <dl className="webhook-facts">
          <dt>State</dt>
          <dd>
            <span className={`webhook-state state-${webhook.state}`}>{webhookStateText(webhook, formatTime)}</span>
          </dd>
          <dt>Events</dt>
          <dd className={webhook.eventTypes.includes("*") ? undefined : "mono"}>{eventTypesLabel(webhook.eventTypes)}</dd>
          <dt>Added</dt>
          <dd>
            <time dateTime={webhook.createdAt}>{formatTime(webhook.createdAt)}</time>
          </dd>
        </dl>
        {secret ? (
          <SecretOnce
            label={`Signing secret of ${name}`}
            copyLabel="Copy signing secret"
            secret={secret.secret}
            inputRef={secretInput}
            note={
              secret.kind === "created"
                ? "Store it with the receiver now: it verifies the webhook-signature header of every delivery. It is not shown again; if it is lost, rotate the secret."
                : `The previous secret keeps signing beside this one until ${formatTime(previousSecretUntil(secret.at).toISOString())}: switch the receiver to this secret before then.`
            }
          />
        ) : null}
        <div className="row webhook-actions">
          <button type="button" onClick={onEdit} aria-label={`Edit ${name}`}>
            Edit
          </button>
          <button
            type="button"
            className="ghost"
            onClick={() => toggle.mutate(!webhook.enabled)}
            disabled={toggle.isPending}
            aria-busy={toggle.isPending || undefined}
            aria-label={`${webhook.enabled ? "Disable" : "Enable"} ${name}`}
          >
            {webhook.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            className="ghost"
            onClick={() => test.mutate()}
            disabled={test.isPending}
            aria-busy={test.isPending || undefined}
            aria-label={`Send test event to ${name}`}
          >
            Send test event
          </button>
          <button type="button" className="ghost" onClick={onRotate} aria-label={`Rotate secret of ${name}`}>
            Rotate secret
          </button>
          <button
            type="button"
            className="ghost"
            aria-expanded={logOpen}
            aria-controls={logId}
            onClick={() => setLogOpen((open) => !open)}
            aria-label={`Delivery log of ${name}`}
          >
            Delivery log
          </button>
          <button type="button" className="danger" onClick={onDelete} aria-label={`Delete ${name}`}>
            Delete
          </button>
        </div>
        <p role="status" className="status-message">
          {notice}
        </p>
        <ErrorMessage error={toggle.error ?? test.error} />
        <div id={logId} hidden={!logOpen}>
          {logOpen ? <DeliveryLog webhook={webhook} headingId={logHeadingId} /> : null}
        </div>
      </article>
    </li>
  );
}
