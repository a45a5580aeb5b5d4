// The workspace this browser last opened, so signing in goes straight to its inbox. Kept in
// localStorage (it outlives the tab, unlike the session): only an id, which grants nothing; it
// is used only when the person signing in is still a member of it.

const STORAGE_KEY = "supportdesk.dashboard.lastWorkspace";

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function rememberWorkspace(workspaceId: string): void {
  try {
    storage()?.setItem(STORAGE_KEY, workspaceId);
  } catch {
    // quota or denied storage: the picker still works
  }
}

export function rememberedWorkspace(): string | null {
  try {
    return storage()?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

/**
 * Where signing in leads: the only workspace, else the remembered one if still a member, else
 * nowhere (null: the picker).
 */
export function startingWorkspace(memberships: readonly { id: string }[], remembered: string | null): string | null {
  if (memberships.length === 1) return memberships[0]?.id ?? null;
  if (remembered && memberships.some((m) => m.id === remembered)) return remembered;
  return null;
}
