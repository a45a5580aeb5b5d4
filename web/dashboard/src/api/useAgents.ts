"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { unwrap } from "./client";
import { keys } from "./keys";
import type { Agent } from "./types";
import { useApi } from "@/app/providers";

/** The team (`all` includes deactivated members, whose old messages still name them). */
export function useAgents(workspaceId: string, status: "active" | "all" = "active", options: { fresh?: boolean } = {}) {
  const api = useApi();
  return useQuery({
    queryKey: keys.agents(workspaceId, status),
    queryFn: () => unwrap(api.workspace.GET("/api/agents", { params: { query: { status, limit: 200 } } })),
    // The Team page asks again each time it opens: joins and leaves raise no hub event.
    refetchOnMount: options.fresh ? "always" : true,
  });
}

/** Agents by id, for names next to messages and assignees. */
export function useAgentNames(workspaceId: string): Map<string, Agent> {
  const { data } = useAgents(workspaceId, "all");
  return useMemo(() => new Map((data?.agents ?? []).map((a) => [a.id, a])), [data]);
}
