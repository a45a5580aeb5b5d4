"use client";

// How the inbox hands out work: whether replying to an unassigned conversation makes it yours
// (`inbox.autoAssignOnReply`; the API assigns on the reply, this only sets the switch).

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ErrorMessage, StatusMessage, SubmitButton } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";

export function InboxSettings() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const id = useId();
  const settings = useQuery({ queryKey: keys.settings(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings")) });
  const save = useMutation({
    mutationFn: (autoAssignOnReply: boolean) => unwrap(api.workspace.PATCH("/api/settings", { body: { inbox: { autoAssignOnReply } } })),
    onSuccess: (data) => queryClient.setQueryData(keys.settings(workspace.id), data),
  });
  const inbox = settings.data?.inbox;
  return (
    <section aria-labelledby="inbox-settings-heading" className="panel">
      <h2 id="inbox-settings-heading">Inbox</h2>
      <ErrorMessage error={settings.error} />
      {inbox ? (
        <form
          key={settings.data?.updatedAt}
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(new FormData(event.currentTarget).get("autoAssignOnReply") === "on");
          }}
        >
          <div className="checkbox preference">
            <input id={id} type="checkbox" name="autoAssignOnReply" defaultChecked={inbox.autoAssignOnReply} aria-describedby={`${id}-hint`} />
            <label htmlFor={id}>Assign a conversation to the agent who replies first</label>
            <p className="hint" id={`${id}-hint`}>
              An agent&apos;s reply to an unassigned conversation makes it theirs, so two agents do not answer the same person.
              Private notes do not count.
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
