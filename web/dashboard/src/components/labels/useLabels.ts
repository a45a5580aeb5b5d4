// The workspace's labels, read once per workspace and shared by every view that shows or picks
// them. A conversation names its labels (id, name, colour); views show them through this set,
// so a label renamed or deleted reads right everywhere once the set is read again.

import { useQuery } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { useApi } from "@/app/providers";

export function useLabels(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: keys.labels(workspaceId),
    queryFn: () => unwrap(api.workspace.GET("/api/labels")),
    staleTime: 60_000,
  });
}
