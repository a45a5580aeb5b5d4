"use client";

// The browser's answer about desktop notifications, as React state. The question is asked
// only from a click ("Enable desktop notifications"), never on load: browsers block or
// penalise pages that ask unprompted.

import { useCallback, useEffect, useState, useSyncExternalStore } from "react";

export type Permission = NotificationPermission | "unsupported";

function currentPermission(): Permission {
  return typeof window !== "undefined" && "Notification" in window ? window.Notification.permission : "unsupported";
}

export function useNotificationPermission(): { permission: Permission; request: () => Promise<void> } {
  // "unsupported" until mounted: the server-rendered HTML knows no browser.
  const [permission, setPermission] = useState<Permission>("unsupported");
  useEffect(() => {
    const refresh = () => setPermission(currentPermission());
    refresh();
    // The person may change it in the browser's site settings meanwhile.
    window.addEventListener("focus", refresh);
    return () => window.removeEventListener("focus", refresh);
  }, []);
  const request = useCallback(async () => {
    if (currentPermission() === "unsupported") return;
    setPermission(await window.Notification.requestPermission());
  }, []);
  return { permission, request };
}

const DISMISSED_KEY = "supportdesk.dashboard.notificationOfferDismissed";
const dismissedListeners = new Set<() => void>();

function readDismissed(): boolean {
  try {
    return window.localStorage.getItem(DISMISSED_KEY) === "1";
  } catch {
    return false;
  }
}

function subscribeDismissed(listener: () => void): () => void {
  dismissedListeners.add(listener);
  return () => dismissedListeners.delete(listener);
}

function dismissOffer(): void {
  try {
    window.localStorage.setItem(DISMISSED_KEY, "1");
  } catch {
    // storage denied: nothing remembers it, so the offer stays
  }
  for (const listener of dismissedListeners) listener();
}

/** Whether the agent closed the shell's offer to enable notifications (kept across visits). */
export function useOfferDismissed(): [boolean, () => void] {
  // Dismissed while the server renders: the offer appears only once the browser is known.
  const dismissed = useSyncExternalStore(subscribeDismissed, readDismissed, () => true);
  return [dismissed, dismissOffer];
}
