"use client";

// API keys for integrations: created, regenerated and revoked here; each secret is shown once.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ConfirmDialog, ErrorMessage, fieldErrors, formatTime, formText, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";
import { SecretOnce } from "./SecretOnce";

export function ApiKeys() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: keys.apiKeys(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings/api-keys")) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.apiKeys(workspace.id) });
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  // The key an action waits on a confirmation for.
  const [asking, setAsking] = useState<{ action: "regenerate" | "revoke"; id: string; name: string } | null>(null);
  // Secrets are shown once: the mutations that return one are dropped from TanStack's mutation
  // cache as soon as this section unmounts (gcTime 0), not kept for the default five minutes.
  const create = useMutation({
    gcTime: 0,
    mutationFn: (name: string) => unwrap(api.workspace.POST("/api/settings/api-keys", { body: { name } })),
    onSuccess: (key) => {
      setSecret({ name: key.name, key: key.key });
      void refresh();
    },
  });
  const regenerate = useMutation({
    gcTime: 0,
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
                  <button type="button" onClick={() => setAsking({ action: "regenerate", id: key.id, name: key.name })} aria-label={`Regenerate API key ${key.name}`}>
                    Regenerate
                  </button>
                  <button type="button" className="danger" onClick={() => setAsking({ action: "revoke", id: key.id, name: key.name })} aria-label={`Revoke API key ${key.name}`}>
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
      <ConfirmDialog
        open={asking !== null}
        title={asking?.action === "revoke" ? `Revoke API key ${asking.name}?` : `Regenerate API key ${asking?.name ?? ""}?`}
        action={asking?.action === "revoke" ? "Revoke" : "Regenerate"}
        pending={regenerate.isPending || revoke.isPending}
        onConfirm={() => {
          if (!asking) return;
          const done = { onSettled: () => setAsking(null) };
          if (asking.action === "revoke") revoke.mutate(asking.id, done);
          else regenerate.mutate(asking.id, done);
        }}
        onClose={() => setAsking(null)}
      >
        <p>
          {asking?.action === "revoke"
            ? "Integrations using this key stop working at once. This cannot be undone."
            : "The current secret stops working at once; integrations need the new one, shown once."}
        </p>
      </ConfirmDialog>
    </section>
  );
}
