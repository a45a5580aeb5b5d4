"use client";

// Client-only state fed by hub events (typing, unread markers, previews), kept in the query
// cache next to the server state it annotates. Never fetched: `enabled: false` keeps
// invalidations from touching it.

import { type QueryKey, useQuery } from "@tanstack/react-query";

export function useLiveState<T>(queryKey: QueryKey, initial: T): T {
  const { data } = useQuery({
    queryKey,
    queryFn: () => initial,
    enabled: false,
    initialData: initial,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return data ?? initial;
}
