"use client";

// Deleting the workspace, confirmed by typing its slug.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { ErrorMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { leaveWorkspace } from "@/session/store";
import { useWorkspace } from "../WorkspaceContext";

export function DeleteWorkspace() {
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
