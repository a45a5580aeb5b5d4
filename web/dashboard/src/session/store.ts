// Who is signed in and in which workspace: the user token, the selected workspace and its
// token. Kept in memory and mirrored to sessionStorage (this tab only, gone with the tab; never
// a cookie, never a URL), so a reload keeps the person signed in. A tiny external store: React
// reads it with useSyncExternalStore (see useSession), and the API client and the hub read it
// directly.

import type { components } from "@/api/schema";

export type Role = components["schemas"]["Role"];

export interface WorkspaceSession {
  id: string;
  name: string;
  slug: string;
  role: Role;
  token: string;
  expiresAt: string;
}

export interface Session {
  userToken: string | null;
  workspace: WorkspaceSession | null;
  /** A message for the next page to show once (e.g. "your access ended"). */
  notice: string | null;
}

export const EMPTY_SESSION: Session = Object.freeze({ userToken: null, workspace: null, notice: null });

const STORAGE_KEY = "supportdesk.dashboard.session";

let current: Session = EMPTY_SESSION;
let loaded = false;
const listeners = new Set<() => void>();

function isString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** Reads a stored session, dropping anything malformed rather than trusting it. */
export function parseSession(raw: string | null): Session {
  if (!raw) return EMPTY_SESSION;
  try {
    const value = JSON.parse(raw) as Partial<Record<keyof Session, unknown>>;
    const ws = value.workspace as Partial<Record<keyof WorkspaceSession, unknown>> | null | undefined;
    const workspace =
      ws && isString(ws.id) && isString(ws.name) && isString(ws.slug) && isString(ws.token) && isString(ws.expiresAt) &&
      (ws.role === "admin" || ws.role === "agent")
        ? { id: ws.id, name: ws.name, slug: ws.slug, role: ws.role as Role, token: ws.token, expiresAt: ws.expiresAt }
        : null;
    const userToken = isString(value.userToken) ? value.userToken : null;
    return { userToken, workspace: userToken ? workspace : null, notice: isString(value.notice) ? value.notice : null };
  } catch {
    return EMPTY_SESSION;
  }
}

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null; // storage denied: memory only
  }
}

export function getSession(): Session {
  if (!loaded && typeof window !== "undefined") {
    loaded = true;
    current = parseSession(storage()?.getItem(STORAGE_KEY) ?? null);
  }
  return current;
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function update(next: (session: Session) => Session): void {
  current = next(getSession());
  try {
    if (current.userToken) storage()?.setItem(STORAGE_KEY, JSON.stringify(current));
    else if (current.notice) storage()?.setItem(STORAGE_KEY, JSON.stringify({ notice: current.notice }));
    else storage()?.removeItem(STORAGE_KEY);
  } catch {
    // quota or denied storage: the in-memory session still works for this page
  }
  for (const listener of listeners) listener();
}

export function signIn(userToken: string, notice: string | null = null): void {
  update(() => ({ userToken, workspace: null, notice }));
}

/** A renewed user token for the person signed in (nothing when they signed out meanwhile). */
export function renewUserToken(userToken: string): void {
  update((s) => (s.userToken ? { ...s, userToken } : s));
}

export function enterWorkspace(workspace: WorkspaceSession): void {
  update((s) => ({ ...s, workspace, notice: null }));
}

export function renewWorkspaceToken(workspaceId: string, token: string, expiresAt: string): void {
  update((s) => (s.workspace?.id === workspaceId ? { ...s, workspace: { ...s.workspace, token, expiresAt } } : s));
}

/** Drops the workspace token (access ended, or switching); the user stays signed in. */
export function leaveWorkspace(notice: string | null = null): void {
  update((s) => ({ ...s, workspace: null, notice }));
}

/** Drops every token. */
export function signOut(notice: string | null = null): void {
  update(() => ({ userToken: null, workspace: null, notice }));
}
