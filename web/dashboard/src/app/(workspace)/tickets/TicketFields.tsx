"use client";

// The fields a ticket is written with, when created and when edited.

import type { Ticket } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { fieldErrors, SelectField, TextArea, TextField } from "@/components/ui";
import { NO_PRIORITY_LABEL, PRIORITIES_BY_URGENCY, priorityLabel } from "@/lib/labels";
import { useWorkspace } from "../WorkspaceContext";

export function TicketFields({ ticket, error }: { ticket?: Ticket; error: unknown }) {
  const { workspace } = useWorkspace();
  const agents = useAgents(workspace.id);
  const names = useAgentNames(workspace.id);
  // An assignee who is no longer active (a resolved ticket keeps them) stays selected and named,
  // instead of the select falling back to "Unassigned".
  const current = ticket?.assigneeId ?? null;
  const inactive = current !== null && agents.isSuccess && !agents.data.agents.some((a) => a.id === current) ? current : null;
  return (
    <>
      <TextField label="Subject" name="subject" required defaultValue={ticket?.subject ?? ""} errors={fieldErrors(error, "subject")} />
      <TextArea label="Description" name="description" rows={4} defaultValue={ticket?.description ?? ""} errors={fieldErrors(error, "description")} />
      <PrioritySelect defaultValue={ticket?.priority ?? null} />
      {/* Mounted again once the agents load, so the default finds its option. */}
      <SelectField key={agents.isSuccess ? "agents" : "loading"} label="Assignee" name="assigneeId" defaultValue={current ?? ""}>
        <option value="">Unassigned</option>
        {inactive ? <option value={inactive}>{`${names.get(inactive)?.displayName ?? "Former agent"} (inactive)`}</option> : null}
        {(agents.data?.agents ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.displayName}
          </option>
        ))}
      </SelectField>
    </>
  );
}

/** Priority, most pressing first, "None" last (the API's null). */
export function PrioritySelect({ defaultValue }: { defaultValue: Ticket["priority"] }) {
  return (
    <SelectField label="Priority" name="priority" defaultValue={defaultValue ?? ""}>
      {PRIORITIES_BY_URGENCY.map((p) => (
        <option key={p} value={p}>
          {priorityLabel(p)}
        </option>
      ))}
      <option value="">{NO_PRIORITY_LABEL}</option>
    </SelectField>
  );
}
