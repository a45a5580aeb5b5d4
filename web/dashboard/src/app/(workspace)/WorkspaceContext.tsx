"use client";

import { createContext, useContext } from "react";
import type { Profile } from "@/api/types";
import type { WorkspaceSession } from "@/session/store";

export interface WorkspaceContextValue {
  workspace: WorkspaceSession;
  /** The signed-in agent in this workspace (GET /api/me/profile); null while loading. */
  me: Profile | null;
  isOwner: boolean;
}

export const WorkspaceContext = createContext<WorkspaceContextValue | null>(null);

export function useWorkspace(): WorkspaceContextValue {
  const value = useContext(WorkspaceContext);
  if (!value) throw new Error("WorkspaceShell missing");
  return value;
}
