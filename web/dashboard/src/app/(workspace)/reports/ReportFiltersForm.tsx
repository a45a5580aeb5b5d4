"use client";

// The filters every report shares: the range (a preset, or custom days), the grouping,
// business hours only, and, for Owners, one agent; the channel and a label for everyone.
// Each change applies at once. Presets end "today" in the workspace's time zone, the one the
// API reports in (known from its last answer); "Last 30 days" is the API's own default.

import { useMemo } from "react";
import type { ReportChannel, ReportGroupBy, ReportRange } from "@/api/reports";
import { useAgents } from "@/api/useAgents";
import { useLabels } from "@/components/labels/useLabels";
import { Checkbox, SelectField, TextField } from "@/components/ui";
import {
  CHANNEL_OPTIONS,
  GROUP_BY_OPTIONS,
  presetRange,
  RANGE_PRESETS,
  type RangeErrors,
  type RangePreset,
  type ReportFilters,
  todayIn,
} from "@/lib/reports";
import { useWorkspace } from "../WorkspaceContext";
import styles from "./reports.module.css";

type SetFilters = (change: Partial<ReportFilters>) => void;

export function ReportFiltersForm({
  filters,
  set,
  isOwner,
  range,
  errors,
}: {
  filters: ReportFilters;
  set: SetFilters;
  isOwner: boolean;
  /** The range of the figures shown, when there are some: its time zone and days. */
  range: ReportRange | null;
  /** The custom range's problems, found here or by the API. */
  errors: RangeErrors;
}) {
  const { workspace } = useWorkspace();
  const labels = useLabels(workspace.id);
  const choosePreset = (preset: RangePreset) => {
    if (preset === "custom") set({ preset, from: filters.from || range?.from || "", to: filters.to || range?.to || "" });
    else if (preset === "last30") set({ preset, from: "", to: "" });
    else set({ preset, ...presetRange(preset, todayIn(range?.timeZone, new Date())) });
  };
  return (
    <form className={styles.filters} aria-label="Report filters" onSubmit={(event) => event.preventDefault()}>
      <SelectField label="Range" value={filters.preset} onChange={(event) => choosePreset(event.target.value as RangePreset)}>
        {RANGE_PRESETS.map((preset) => (
          <option key={preset.value} value={preset.value}>
            {preset.label}
          </option>
        ))}
      </SelectField>
      {filters.preset === "custom" ? (
        <div className={styles.dates} role="group" aria-label="Custom range">
          <TextField
            label="From"
            type="date"
            value={filters.from}
            max={filters.to || undefined}
            required
            onChange={(event) => set({ from: event.target.value })}
            errors={errors.from}
          />
          <TextField
            label="To"
            type="date"
            value={filters.to}
            min={filters.from || undefined}
            required
            onChange={(event) => set({ to: event.target.value })}
            errors={errors.to}
          />
        </div>
      ) : null}
      <SelectField label="Group by" value={filters.groupBy} onChange={(event) => set({ groupBy: event.target.value as ReportGroupBy })}>
        {GROUP_BY_OPTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
      <Checkbox label="Business hours only" checked={filters.businessHours} onChange={(event) => set({ businessHours: event.target.checked })} />
      {isOwner ? (
        <AgentFilter value={filters.agentId} onChange={(agentId) => set({ agentId })} />
      ) : (
        <p className={styles.own}>
          <strong>Agent:</strong> Your figures
        </p>
      )}
      <SelectField label="Channel" value={filters.channel} onChange={(event) => set({ channel: event.target.value as ReportChannel | "" })}>
        <option value="">All channels</option>
        {CHANNEL_OPTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
      <SelectField label="Label" value={filters.labelId} onChange={(event) => set({ labelId: event.target.value })}>
        <option value="">All labels</option>
        {(labels.data?.labels ?? []).map((label) => (
          <option key={label.id} value={label.id}>
            {label.name}
          </option>
        ))}
      </SelectField>
    </form>
  );
}

/** Owners pick one agent, or all; deactivated members keep their past figures. */
function AgentFilter({ value, onChange }: { value: string; onChange: (agentId: string) => void }) {
  const { workspace } = useWorkspace();
  const team = useAgents(workspace.id, "all");
  const agents = useMemo(() => [...(team.data?.agents ?? [])].sort((a, b) => a.displayName.localeCompare(b.displayName)), [team.data]);
  return (
    <SelectField label="Agent" value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">All agents</option>
      {agents.map((agent) => (
        <option key={agent.id} value={agent.id}>
          {agent.displayName}
          {agent.status === "deactivated" ? " (deactivated)" : ""}
        </option>
      ))}
    </SelectField>
  );
}
