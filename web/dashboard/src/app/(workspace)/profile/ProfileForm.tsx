"use client";

// The agent's own record in this workspace (display name, avatar, notification preferences,
// the reply box's Enter key), and the account's email address (POST /auth/change-email with
// the password, user token). Every preference the API has is here, each saying what it does.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Profile } from "@/api/types";
import { ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useSharedNotificationPermission } from "@/notifications/context";
import { EnableDesktopNotifications } from "@/notifications/EnableDesktopNotifications";
import { useWorkspace } from "../WorkspaceContext";
import { PreferenceCheckbox } from "./PreferenceCheckbox";

type Preferences = Profile["notificationPreferences"];

const EMAILS: readonly { name: keyof Preferences; label: string; hint: string }[] = [
  { name: "emailOnAssignment", label: "Email me when a conversation is assigned to me", hint: "Not when you take it yourself." },
  { name: "emailOnNewConversation", label: "Email me about new conversations", hint: "Each new conversation that arrives unassigned." },
  { name: "emailOnContactReply", label: "Email me when a contact replies", hint: "In conversations assigned to you." },
  { name: "emailOnMention", label: "Email me when a teammate mentions me", hint: "A private note naming you as @ and your display name." },
];

const IN_BROWSER: readonly { name: keyof Preferences; label: string; hint: string }[] = [
  {
    name: "desktop",
    label: "Desktop notifications",
    hint: "New chats, messages in conversations assigned to you or unassigned, and mentions, while the dashboard is open in this browser (not for the conversation you are looking at).",
  },
  { name: "sound", label: "Play a sound", hint: "A short tone for new chats and for messages in conversations assigned to you or unassigned." },
];

const ALL_PREFERENCES = [...EMAILS, ...IN_BROWSER];

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
            notificationPreferences: Object.fromEntries(ALL_PREFERENCES.map((p) => [p.name, form.get(p.name) === "on"])),
            sendWithEnter: form.get("sendWithEnter") === "on",
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
              <legend>Email notifications</legend>
              <p className="hint">
                Emails are batched: at most one every 2 minutes, holding everything since the last. Never about your own
                actions.
              </p>
              {EMAILS.map((p) => (
                <PreferenceCheckbox key={p.name} name={p.name} label={p.label} hint={p.hint} defaultChecked={me.notificationPreferences[p.name]} />
              ))}
            </fieldset>
            <fieldset>
              <legend>In this browser</legend>
              {IN_BROWSER.map((p) => (
                <PreferenceCheckbox key={p.name} name={p.name} label={p.label} hint={p.hint} defaultChecked={me.notificationPreferences[p.name]} />
              ))}
              <DesktopPermission />
            </fieldset>
            <fieldset>
              <legend>Replying</legend>
              <PreferenceCheckbox
                name="sendWithEnter"
                label="Enter sends the message (Shift+Enter for a new line)"
                hint="When off, Enter makes a new line and Ctrl+Enter (⌘+Enter on a Mac) sends."
                defaultChecked={me.sendWithEnter}
              />
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

/** What this browser allows, and the click that asks it (browsers ask only from a click). */
function DesktopPermission() {
  const { permission, request } = useSharedNotificationPermission();
  return (
    <div className="desktop-permission">
      <EnableDesktopNotifications permission={permission} request={request} />
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
