"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { unwrap } from "@/api/client";
import { useApi } from "@/app/providers";
import { rememberWorkspace } from "./lastWorkspace";
import { enterWorkspace, getSession } from "./store";

/**
 * Exchanges the user token for a workspace token (POST /workspaces/{id}/select), remembers the
 * workspace for the next sign-in, and opens the inbox.
 */
export function useSelectWorkspace() {
  const api = useApi();
  const router = useRouter();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (workspaceId: string) =>
      unwrap(api.user.POST("/workspaces/{id}/select", { params: { path: { id: workspaceId } } })),
    onSuccess: ({ token, expiresAt, workspace }) => {
      const previous = getSession().workspace;
      if (previous && previous.id !== workspace.id) queryClient.removeQueries({ queryKey: ["ws", previous.id] });
      enterWorkspace({ ...workspace, token, expiresAt });
      rememberWorkspace(workspace.id);
      router.push("/inbox");
    },
  });
}
