"use client";

// "Assigned to": one agent's conversations. The tabs cover the signed-in agent (Mine) and
// nobody (Unassigned); this names anyone on the team, shown under All. "Any" leaves it to the tab.

import { useAgentNames, useAgents } from "@/api/useAgents";
import { SelectField } from "@/components/ui";

export function AssigneeFilter({
  workspaceId,
  agentId,
  meId,
  onChange,
}: {
  workspaceId: string;
  agentId: string | null;
  meId: string | null;
  onChange: (agentId: string | null) => void;
}) {
  const agents = useAgents(workspaceId);
  const names = useAgentNames(workspaceId);
  const active = agents.data?.agents ?? [];
  // A link or a saved view may name someone deactivated since: still listed, so the select
  // says what the list shows.
  const other = agentId && !active.some((a) => a.id === agentId) ? agentId : null;
  const otherName = other ? names.get(other)?.displayName : undefined;
  return (
    <SelectField label="Assigned to" value={agentId ?? ""} onChange={(event) => onChange(event.target.value || null)}>
      <option value="">Any</option>
      {other ? <option value={other}>{otherName ? `${otherName} (inactive)` : agents.data ? "(inactive agent)" : "Loading agents…"}</option> : null}
      {active.map((a) => (
        <option key={a.id} value={a.id}>
          {a.id === meId ? `${a.displayName} (me)` : a.displayName}
        </option>
      ))}
    </SelectField>
  );
}
