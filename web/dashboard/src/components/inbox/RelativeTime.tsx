"use client";

// "5m", "3h", "Tue": kept current by a shared minute tick; the full time is in the title and
// the machine-readable one in dateTime.

import { useSyncExternalStore } from "react";
import { fullTime, relativeTime } from "@/lib/time";

const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      listeners.forEach((l) => l());
    }, 30_000);
  }
  return () => {
    listeners.delete(listener);
    if (!listeners.size && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The current time, to the half minute, shared by every clock on the page. */
export function useMinuteClock(): number {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => 0,
  );
}

export function RelativeTime({ iso, className }: { iso: string; className?: string }) {
  const at = useMinuteClock();
  return (
    <time dateTime={iso} title={fullTime(iso)} className={className}>
      {at ? relativeTime(iso, at) : ""}
    </time>
  );
}
