"use client";

// The chat widget: the site key and its embed snippet, the origins allowed to open it, and
// identity verification with its secret.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { WidgetSettings } from "@/api/types";
import { Checkbox, ConfirmDialog, CopyButton, ErrorMessage, fieldErrors, StatusMessage, SubmitButton, TextArea } from "@/components/ui";
import { useApi, useConfig } from "@/app/providers";
import { embedSnippet, parseOrigins } from "@/lib/origins";
import { useWorkspace } from "../WorkspaceContext";
import { SecretOnce } from "./SecretOnce";

export function Widget() {
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
  // The secret is shown once: dropped from the mutation cache when this section unmounts.
  const regenerateSecret = useMutation({
    gcTime: 0,
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
          <ConfirmDialog
            open={confirmKey}
            title="Regenerate the site key?"
            action="Regenerate"
            pending={regenerateKey.isPending}
            onConfirm={() => regenerateKey.mutate(undefined, { onSettled: () => setConfirmKey(false) })}
            onClose={() => setConfirmKey(false)}
          >
            <p>The current key stops working at once: every page embedding it needs the new snippet.</p>
          </ConfirmDialog>

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
