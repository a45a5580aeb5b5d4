"use client";

// The browser's notification permission, shared by the shell's offer and the Profile page, so
// enabling in one place updates the other.

import { createContext, useContext } from "react";
import type { Permission } from "./permission";

export interface NotificationPermissionValue {
  permission: Permission;
  request: () => Promise<void>;
}

export const NotificationPermissionContext = createContext<NotificationPermissionValue>({
  permission: "unsupported",
  request: async () => undefined,
});

export function useSharedNotificationPermission(): NotificationPermissionValue {
  return useContext(NotificationPermissionContext);
}
