"use client";

// The click that asks the browser for permission to show desktop notifications, and what the
// browser answered. Used in Profile, and as a dismissible offer in the shell.

import type { Permission } from "./permission";

export function EnableDesktopNotifications({ permission, request }: { permission: Permission; request: () => Promise<void> }) {
  if (permission === "unsupported") return <p className="muted">This browser cannot show desktop notifications.</p>;
  if (permission === "granted") return <p className="muted">This browser shows desktop notifications from Support Desk.</p>;
  if (permission === "denied") {
    return <p className="muted">This browser blocks notifications from Support Desk: allow them in the site settings (the icon next to the address).</p>;
  }
  return (
    <button type="button" onClick={() => void request()}>
      Enable desktop notifications
    </button>
  );
}
