"use client";

// The agent's own record in this workspace (display name, avatar, notification preferences),
// and the account's email address (POST /auth/change-email with the password, user token).

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Profile } from "@/api/types";
import { Checkbox, ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";

const PREFERENCES = [
  { name: "emailOnNewConversation", label: "Email me about new conversations" },
  { name: "emailOnAssignment", label: "Email me when a conversation is assigned to me" },
  { name: "emailOnContactReply", label: "Email me when a contact replies" },
  { name: "desktop", label: "Desktop notifications" },
] as const;

export function ProfileForm() {
  const api = useApi();
  const { workspace, me } = useWorkspace();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (form: FormData) =>
      unwrap(
        api.workspace.PATCH("/api/me/profile", {
          body: {
            displayName: formText(form, "displayName"),
            avatarUrl: formText(form, "avatarUrl"),
            notificationPreferences: Object.fromEntries(PREFERENCES.map((p) => [p.name, form.get(p.name) === "on"])),
          },
        }),
      ),
    onSuccess: (profile: Profile) => {
      queryClient.setQueryData(keys.profile(workspace.id), profile);
      void queryClient.invalidateQueries({ queryKey: keys.allAgents(workspace.id) });
    },
  });
  return (
    <div className="page">
      <h1>Profile</h1>
      <section aria-labelledby="profile-heading" className="panel">
        <h2 id="profile-heading">In {workspace.name}</h2>
        {!me ? <p role="status">Loading your profile…</p> : null}
        {me ? (
          <form
            key={JSON.stringify(me)}
            onSubmit={(event) => {
              event.preventDefault();
              save.mutate(new FormData(event.currentTarget));
            }}
          >
            <TextField
              label="Display name"
              name="displayName"
              required
              defaultValue={me.displayName}
              hint="Shown to visitors when you reply."
              errors={fieldErrors(save.error, "displayName")}
            />
            <TextField label="Avatar URL" name="avatarUrl" type="url" defaultValue={me.avatarUrl ?? ""} errors={fieldErrors(save.error, "avatarUrl")} />
            <fieldset>
              <legend>Notifications</legend>
              {PREFERENCES.map((p) => (
                <Checkbox key={p.name} name={p.name} label={p.label} defaultChecked={me.notificationPreferences[p.name] ?? false} />
              ))}
            </fieldset>
            <ErrorMessage error={save.error} />
            {save.isSuccess ? <StatusMessage>Profile saved.</StatusMessage> : null}
            <SubmitButton pending={save.isPending} pendingText="Saving…">
              Save profile
            </SubmitButton>
          </form>
        ) : null}
      </section>
      <ChangeEmail />
    </div>
  );
}

function ChangeEmail() {
  const api = useApi();
  const me = useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.user.GET("/auth/me")) });
  const change = useMutation({
    mutationFn: (body: { newEmail: string; password: string }) => unwrap(api.user.POST("/auth/change-email", { body })),
  });
  return (
    <section aria-labelledby="email-heading" className="panel">
      <h2 id="email-heading">Email address</h2>
      {me.data ? <p>You sign in as {me.data.email}.</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const formElement = event.currentTarget;
          const form = new FormData(formElement);
          change.mutate(
            { newEmail: formText(form, "newEmail") ?? "", password: String(form.get("password") ?? "") },
            { onSuccess: () => formElement.reset() },
          );
        }}
      >
        <TextField label="New email" name="newEmail" type="email" required autoComplete="email" errors={fieldErrors(change.error, "newEmail")} />
        <TextField label="Current password" name="password" type="password" required autoComplete="current-password" />
        <ErrorMessage error={change.error} />
        {change.isSuccess ? <StatusMessage>{change.data.message}</StatusMessage> : null}
        <SubmitButton pending={change.isPending} pendingText="Sending…">
          Change email
        </SubmitButton>
      </form>
    </section>
  );
}
