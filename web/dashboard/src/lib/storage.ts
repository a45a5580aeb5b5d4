// What a workspace's files take, as the settings page says it: "1.2 GB of 10 GB used, 34 files".

import { formatBytes } from "@supportdesk/shared/attachments";
import type { StorageUse } from "@/api/types";

export function storageSentence({ usedBytes, quotaBytes, files }: StorageUse): string {
  const count = `${files.toLocaleString("en-US")} ${files === 1 ? "file" : "files"}`;
  return `${formatBytes(usedBytes)} of ${formatBytes(quotaBytes)} used, ${count}`;
}

/** The share of the quota used, 0 to 100, rounded down (a full workspace reads 100 only when full). */
export function storagePercent({ usedBytes, quotaBytes }: StorageUse): number {
  if (quotaBytes <= 0) return 100;
  return Math.min(100, Math.floor((usedBytes / quotaBytes) * 100));
}
