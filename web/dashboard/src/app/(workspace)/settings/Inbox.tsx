"use client";

// How the inbox hands out work and asks for feedback: whether replying to an unassigned
// conversation makes it yours (`inbox.autoAssignOnReply`; the API assigns on the reply), and
// whether the chat widget asks the visitor to rate a resolved conversation
// (`inbox.csatOnResolve`; the widget asks, the API refuses ratings while it is off). This only
// sets the switches, both saved by one form.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { components } from "@/api/schema";
import { ErrorMessage, StatusMessage, SubmitButton } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";

type InboxSettingsValues = components["schemas"]["InboxSettings"];

export function InboxSettings() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const id = useId();
  const settings = useQuery({ queryKey: keys.settings(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings")) });
  const save = useMutation({
    mutationFn: (inbox: InboxSettingsValues) => unwrap(api.workspace.PATCH("/api/settings", { body: { inbox } })),
    onSuccess: (data) => queryClient.setQueryData(keys.settings(workspace.id), data),
  });
  const inbox = settings.data?.inbox;
  const autoAssignId = `${id}-auto-assign`;
  const csatId = `${id}-csat`;
  return (
    <section aria-labelledby="inbox-settings-heading" className="panel">
      <h2 id="inbox-settings-heading">Inbox</h2>
      <ErrorMessage error={settings.error} />
      {inbox ? (
        <form
          key={settings.data?.updatedAt}
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            save.mutate({ autoAssignOnReply: form.get("autoAssignOnReply") === "on", csatOnResolve: form.get("csatOnResolve") === "on" });
          }}
        >
          <div className="checkbox preference">
            <input id={autoAssignId} type="checkbox" name="autoAssignOnReply" defaultChecked={inbox.autoAssignOnReply} aria-describedby={`${autoAssignId}-hint`} />
            <label htmlFor={autoAssignId}>Assign a conversation to the agent who replies first</label>
            <p className="hint" id={`${autoAssignId}-hint`}>
              An agent&apos;s reply to an unassigned conversation makes it theirs, so two agents do not answer the same person.
              Private notes do not count.
            </p>
          </div>
          <div className="checkbox preference">
            <input id={csatId} type="checkbox" name="csatOnResolve" defaultChecked={inbox.csatOnResolve} aria-describedby={`${csatId}-hint`} />
            <label htmlFor={csatId}>Ask customers to rate resolved conversations</label>
            <p className="hint" id={`${csatId}-hint`}>
              The chat widget asks the visitor for a rating from 1 to 5 when you resolve their conversation.
            </p>
          </div>
          <ErrorMessage error={save.error} />
          {save.isSuccess ? <StatusMessage>Inbox settings saved.</StatusMessage> : null}
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save inbox settings
          </SubmitButton>
        </form>
      ) : null}
    </section>
  );
}
