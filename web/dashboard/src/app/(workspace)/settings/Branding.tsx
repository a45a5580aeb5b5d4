"use client";

// The workspace's name, colour, logo and greeting as visitors see them in the widget.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextArea, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";

export function Branding() {
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
