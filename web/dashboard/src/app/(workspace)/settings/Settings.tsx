"use client";

// Owners only (the API answers 403 to agents, and its `detail` is shown): branding, the chat
// widget, API keys, canned responses, and deleting the workspace.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { CannedResponse, WidgetSettings } from "@/api/types";
import {
  Checkbox,
  CopyButton,
  Dialog,
  ErrorMessage,
  fieldErrors,
  formatTime,
  formText,
  StatusMessage,
  SubmitButton,
  TextArea,
  TextField,
} from "@/components/ui";
import { useApi, useConfig } from "@/app/providers";
import { embedSnippet, parseOrigins } from "@/lib/origins";
import { leaveWorkspace } from "@/session/store";
import { useWorkspace } from "../WorkspaceContext";

export function Settings() {
  const { isOwner } = useWorkspace();
  return (
    <div className="page">
      <h1>Settings</h1>
      {!isOwner ? <p role="alert">Only Owners can change workspace settings.</p> : <OwnerSettings />}
    </div>
  );
}

function OwnerSettings() {
  return (
    <>
      <nav aria-label="Settings sections" className="toc">
        <a href="#branding-heading">Branding</a> <a href="#widget-heading">Chat widget</a> <a href="#api-keys-heading">API keys</a>{" "}
        <a href="#canned-heading">Canned responses</a> <a href="#danger-heading">Delete workspace</a>
      </nav>
      <Branding />
      <Widget />
      <ApiKeys />
      <CannedResponses />
      <DeleteWorkspace />
    </>
  );
}

function Branding() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: keys.settings(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings")) });
  const save = useMutation({
    mutationFn: (branding: { name: string | null; color: string | null; logoUrl: string | null; widgetGreeting: string | null }) =>
      unwrap(api.workspace.PATCH("/api/settings", { body: { branding } })),
    onSuccess: (data) => queryClient.setQueryData(keys.settings(workspace.id), data),
  });
  const branding = settings.data?.branding;
  return (
    <section aria-labelledby="branding-heading" className="panel">
      <h2 id="branding-heading">Branding</h2>
      <ErrorMessage error={settings.error} />
      {branding ? (
        <form
          key={settings.data?.updatedAt}
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            // Empty fields clear (null), as the API's PATCH reads them.
            save.mutate({
              name: formText(form, "name"),
              color: formText(form, "color"),
              logoUrl: formText(form, "logoUrl"),
              widgetGreeting: formText(form, "widgetGreeting"),
            });
          }}
        >
          <TextField label="Display name" name="name" defaultValue={branding.name ?? ""} hint="Shown to visitors in the widget." errors={fieldErrors(save.error, "branding.name")} />
          <TextField label="Brand colour" name="color" defaultValue={branding.color ?? ""} placeholder="#2563eb" hint="A hex colour such as #2563eb." errors={fieldErrors(save.error, "branding.color")} />
          <TextField label="Logo URL" name="logoUrl" type="url" defaultValue={branding.logoUrl ?? ""} errors={fieldErrors(save.error, "branding.logoUrl")} />
          <TextArea label="Widget greeting" name="widgetGreeting" rows={2} defaultValue={branding.widgetGreeting ?? ""} />
          <ErrorMessage error={save.error} />
          {save.isSuccess ? <StatusMessage>Branding saved.</StatusMessage> : null}
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save branding
          </SubmitButton>
        </form>
      ) : null}
    </section>
  );
}

function Widget() {
  const api = useApi();
  const { widgetUrl } = useConfig();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const widget = useQuery({ queryKey: keys.widget(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings/widget")) });
  const saved = (data: WidgetSettings) => queryClient.setQueryData(keys.widget(workspace.id), data);
  const [invalid, setInvalid] = useState<string[]>([]);
  const save = useMutation({
    mutationFn: (allowedOrigins: string[]) => unwrap(api.workspace.PATCH("/api/settings/widget", { body: { allowedOrigins } })),
    onSuccess: saved,
  });
  const verification = useMutation({
    mutationFn: (enabled: boolean) => unwrap(api.workspace.PATCH("/api/settings/widget", { body: { identityVerification: { enabled } } })),
    onSuccess: saved,
  });
  const regenerateKey = useMutation({
    mutationFn: () => unwrap(api.workspace.POST("/api/settings/widget/site-key/regenerate")),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.widget(workspace.id) }),
  });
  const [confirmKey, setConfirmKey] = useState(false);
  const regenerateSecret = useMutation({
    mutationFn: () => unwrap(api.workspace.POST("/api/settings/widget/identity-secret/regenerate")),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.widget(workspace.id) }),
  });
  const data = widget.data;
  return (
    <section aria-labelledby="widget-heading" className="panel">
      <h2 id="widget-heading">Chat widget</h2>
      <ErrorMessage error={widget.error} />
      {data ? (
        <>
          <div className="field">
            <label htmlFor="site-key">Site key</label>
            <div className="row">
              <input id="site-key" readOnly value={data.siteKey} className="mono" onFocus={(e) => e.currentTarget.select()} />
              <CopyButton text={data.siteKey} label="Copy site key" />
              <button type="button" className="danger" onClick={() => setConfirmKey(true)}>
                Regenerate site key
              </button>
            </div>
            <p className="hint">Public: it names this workspace in your web pages and grants nothing else.</p>
          </div>
          <ErrorMessage error={regenerateKey.error} />
          <Dialog open={confirmKey} title="Regenerate the site key?" onClose={() => setConfirmKey(false)}>
            <p>The current key stops working at once: every page embedding it needs the new snippet.</p>
            <button
              type="button"
              className="danger"
              onClick={() => regenerateKey.mutate(undefined, { onSettled: () => setConfirmKey(false) })}
              disabled={regenerateKey.isPending}
            >
              Regenerate
            </button>
          </Dialog>

          <div className="field">
            <label htmlFor="embed-snippet">Embed snippet</label>
            <textarea id="embed-snippet" readOnly rows={2} className="mono" value={embedSnippet(widgetUrl, data.siteKey)} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={embedSnippet(widgetUrl, data.siteKey)} label="Copy embed snippet" />
          </div>

          <form
            key={data.allowedOrigins.join("\n")}
            onSubmit={(event) => {
              event.preventDefault();
              const { origins, invalid } = parseOrigins(String(new FormData(event.currentTarget).get("origins") ?? ""));
              setInvalid(invalid);
              if (invalid.length === 0) save.mutate(origins);
            }}
          >
            <TextArea
              label="Allowed origins"
              name="origins"
              rows={4}
              defaultValue={data.allowedOrigins.join("\n")}
              hint="One per line, e.g. https://www.example.com. Only pages on these origins can open the widget."
              errors={invalid.length ? [`Not an origin: ${invalid.join(", ")}`] : fieldErrors(save.error, "allowedOrigins")}
            />
            <ErrorMessage error={save.error} />
            {save.isSuccess ? <StatusMessage>Allowed origins saved.</StatusMessage> : null}
            <SubmitButton pending={save.isPending} pendingText="Saving…">
              Save allowed origins
            </SubmitButton>
          </form>

          <h3>Identity verification</h3>
          <p className="hint">
            Signed-in visitors are identified by an HMAC of their id made on your server with the identity secret.
          </p>
          <Checkbox
            label="Require verified identities"
            checked={data.identityVerification.enabled}
            disabled={verification.isPending}
            onChange={(event) => verification.mutate(event.target.checked)}
          />
          <ErrorMessage error={verification.error} />
          <p>{data.identityVerification.hasSecret ? "An identity secret is set." : "No identity secret yet."}</p>
          <button type="button" onClick={() => regenerateSecret.mutate()} disabled={regenerateSecret.isPending}>
            {data.identityVerification.hasSecret ? "Regenerate identity secret" : "Generate identity secret"}
          </button>
          <ErrorMessage error={regenerateSecret.error} />
          {regenerateSecret.data ? <SecretOnce label="Identity secret" secret={regenerateSecret.data.secret} /> : null}
        </>
      ) : null}
    </section>
  );
}

/** A secret the API shows once: readable, copyable, with a warning. */
function SecretOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <div className="secret" role="status">
      <label>
        {label} (shown once: copy it now)
        <input readOnly value={secret} className="mono" onFocus={(e) => e.currentTarget.select()} />
      </label>
      <CopyButton text={secret} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}

function ApiKeys() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: keys.apiKeys(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings/api-keys")) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.apiKeys(workspace.id) });
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.workspace.POST("/api/settings/api-keys", { body: { name } })),
    onSuccess: (key) => {
      setSecret({ name: key.name, key: key.key });
      void refresh();
    },
  });
  const regenerate = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.POST("/api/settings/api-keys/{id}/regenerate", { params: { path: { id } } })),
    onSuccess: (key) => {
      setSecret({ name: key.name, key: key.key });
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/settings/api-keys/{id}", { params: { path: { id } } })),
    onSuccess: () => {
      setSecret(null);
      void refresh();
    },
  });
  return (
    <section aria-labelledby="api-keys-heading" className="panel">
      <h2 id="api-keys-heading">API keys</h2>
      <p className="hint">Keys let integrations list, invite and manage agents. Each secret is shown once.</p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const formElement = event.currentTarget;
          create.mutate(formText(new FormData(formElement), "name") ?? "", { onSuccess: () => formElement.reset() });
        }}
      >
        <TextField label="Key name" name="name" required errors={fieldErrors(create.error, "name")} />
        <SubmitButton pending={create.isPending} pendingText="Creating…">
          Create API key
        </SubmitButton>
      </form>
      <ErrorMessage error={list.error ?? create.error ?? regenerate.error ?? revoke.error} />
      {secret ? <SecretOnce label={`API key ${secret.name}`} secret={secret.key} /> : null}
      {list.data && list.data.apiKeys.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.apiKeys.map((key) => (
              <tr key={key.id}>
                <th scope="row">{key.name}</th>
                <td className="mono">{key.prefix}…</td>
                <td>{formatTime(key.createdAt)}</td>
                <td>{key.lastUsedAt ? formatTime(key.lastUsedAt) : "Never"}</td>
                <td className="actions">
                  <button type="button" onClick={() => regenerate.mutate(key.id)} disabled={regenerate.isPending} aria-label={`Regenerate API key ${key.name}`}>
                    Regenerate
                  </button>
                  <button type="button" className="danger" onClick={() => revoke.mutate(key.id)} disabled={revoke.isPending} aria-label={`Revoke API key ${key.name}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.isSuccess ? (
        <p className="muted">No API keys.</p>
      ) : null}
    </section>
  );
}

function CannedResponses() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.canned(workspace.id, ""),
    queryFn: () => unwrap(api.workspace.GET("/api/canned-responses", { params: { query: { limit: 200 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.allCanned(workspace.id) });
  const [editing, setEditing] = useState<CannedResponse | "new" | null>(null);
  const save = useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: { shortCode: string; title: string; body: string } }) =>
      id
        ? unwrap(api.workspace.PATCH("/api/canned-responses/{id}", { params: { path: { id } }, body }))
        : unwrap(api.workspace.POST("/api/canned-responses", { body })),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/canned-responses/{id}", { params: { path: { id } } })),
    onSuccess: () => void refresh(),
  });
  const current = editing === "new" ? null : editing;
  return (
    <section aria-labelledby="canned-heading" className="panel">
      <h2 id="canned-heading">Canned responses</h2>
      <p className="hint">
        Agents insert them by typing / and the short code. The body may use {"{{contact.name}}"}, {"{{agent.displayName}}"} and{" "}
        {"{{workspace.name}}"}.
      </p>
      <button type="button" onClick={() => setEditing("new")}>
        New canned response
      </button>
      <ErrorMessage error={list.error ?? remove.error} />
      {list.data && list.data.cannedResponses.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Short code</th>
              <th scope="col">Title</th>
              <th scope="col">Body</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.cannedResponses.map((r) => (
              <tr key={r.id}>
                <th scope="row" className="mono">
                  /{r.shortCode}
                </th>
                <td>{r.title}</td>
                <td className="clip">{r.body}</td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(r)} aria-label={`Edit /${r.shortCode}`}>
                    Edit
                  </button>
                  <button type="button" className="danger" onClick={() => remove.mutate(r.id)} disabled={remove.isPending} aria-label={`Delete /${r.shortCode}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.isSuccess ? (
        <p className="muted">No canned responses yet.</p>
      ) : null}
      <Dialog
        open={editing !== null}
        title={current ? `Edit /${current.shortCode}` : "New canned response"}
        onClose={() => {
          save.reset();
          setEditing(null);
        }}
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            save.mutate({
              id: current?.id ?? null,
              body: { shortCode: formText(form, "shortCode") ?? "", title: formText(form, "title") ?? "", body: String(form.get("body") ?? "") },
            });
          }}
        >
          <TextField label="Short code" name="shortCode" required defaultValue={current?.shortCode ?? ""} autoFocus errors={fieldErrors(save.error, "shortCode")} />
          <TextField label="Title" name="title" required defaultValue={current?.title ?? ""} errors={fieldErrors(save.error, "title")} />
          <TextArea label="Body" name="body" required rows={5} defaultValue={current?.body ?? ""} errors={fieldErrors(save.error, "body")} />
          <ErrorMessage error={save.error} />
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save canned response
          </SubmitButton>
        </form>
      </Dialog>
    </section>
  );
}

function DeleteWorkspace() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState("");
  const remove = useMutation({
    mutationFn: () => unwrap(api.workspace.DELETE("/api/workspace")),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.workspace(workspace.id) });
      void queryClient.invalidateQueries({ queryKey: keys.workspaces });
      leaveWorkspace(`${workspace.name} was deleted.`);
    },
  });
  const confirmed = typed.trim() === workspace.slug;
  return (
    <section aria-labelledby="danger-heading" className="panel danger-zone">
      <h2 id="danger-heading">Delete workspace</h2>
      <p>
        Deleting <strong>{workspace.name}</strong> ends everyone&apos;s access at once and removes its conversations, tickets and
        settings. It cannot be undone.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (confirmed) remove.mutate();
        }}
      >
        <TextField
          label={`Type the workspace's slug (${workspace.slug}) to confirm`}
          name="confirm"
          autoComplete="off"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
        <ErrorMessage error={remove.error} />
        <SubmitButton className="danger" pending={remove.isPending} disabled={!confirmed} pendingText="Deleting…">
          Delete this workspace
        </SubmitButton>
      </form>
    </section>
  );
}
