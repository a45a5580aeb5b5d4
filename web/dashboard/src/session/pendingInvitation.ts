// An invitation link opened while signed out, kept for this tab while the person signs in
// (sessionStorage, never the URL), then accepted on /join.
const KEY = "supportdesk.dashboard.invitation";

export function keepInvitation(token: string): void {
  try {
    window.sessionStorage.setItem(KEY, token);
  } catch {
    // storage denied: the person opens the link again after signing in
  }
}

export function pendingInvitation(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function forgetInvitation(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // nothing kept
  }
}
