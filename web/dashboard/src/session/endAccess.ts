import type { QueryClient } from "@tanstack/react-query";
import { keys } from "@/api/keys";
import { getSession, leaveWorkspace, signOut } from "./store";

/**
 * The workspace ended this person's access (deactivated, removed, role changed, workspace
 * deleted): drop its data and token, refresh the list of workspaces, and go to the picker with
 * the reason. Called by the API client (403) and the hub (Close without reconnect).
 */
export function endWorkspaceAccess(queryClient: QueryClient, workspaceId: string, reason: string | null): void {
  const workspace = getSession().workspace;
  if (!workspace || workspace.id !== workspaceId) return;
  queryClient.removeQueries({ queryKey: keys.workspace(workspaceId) });
  void queryClient.invalidateQueries({ queryKey: keys.workspaces });
  leaveWorkspace(`Your access to ${workspace.name} ended${reason ? `: ${reason}` : "."}`);
}

/** A token was refused (expired, revoked): drop the tokens and sign in again. */
export function endSession(): void {
  if (getSession().userToken) signOut("Your session has ended. Please sign in again.");
}
