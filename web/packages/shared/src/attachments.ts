// Files on messages, as both apps handle them: the API's Attachment record, where its signed
// links point and how long they work, how sizes read, which files to refuse before sending any
// byte, and the files a person is putting on a message (uploading, ready, refused) as a pure
// reducer. No React, no fetch: each app uploads and renders in its own way.

/**
 * A file on a message (API.md, "Attachments"). `url` and `thumbnailUrl` are root-relative
 * paths signed by the API, good until `expiresAt` (five minutes): resolve them against the
 * API's base address (`fileUrl`). Records read back from the event log carry no links.
 */
export interface Attachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width?: number | null;
  height?: number | null;
  hasThumbnail: boolean;
  url?: string | null;
  thumbnailUrl?: string | null;
  expiresAt?: string | null;
}

/** Files on one message. */
export const MAX_FILES_PER_MESSAGE = 10;
/** How long the API's links work. */
export const LINK_LIFETIME_MS = 5 * 60_000;
/** Links are asked for again this long before they expire. */
export const LINK_MARGIN_MS = 60_000;
/** A link refresh is never scheduled sooner than this (a clock far off, an expired link). */
const MIN_REFRESH_MS = 10_000;

/** Types the browser shows (and the API serves inline): these get a thumbnail. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function isImage(contentType: string): boolean {
  return IMAGE_TYPES.has(contentType.toLowerCase());
}

/**
 * A link of the API's, made absolute: a root-relative path goes after the API's base address
 * (as the apps' own calls do); an absolute http(s) address stays. Anything else (another
 * scheme, a protocol-relative `//host`) is no link of the API's: null.
 */
export function fileUrl(apiUrl: string, link: string | null | undefined): string | null {
  if (!link) return null;
  if (/^https?:\/\//i.test(link)) return link;
  if (link.startsWith("/") && !link.startsWith("//")) return `${apiUrl.replace(/\/+$/, "")}${link}`;
  return null;
}

/** The same link, asking the API to send the file as a download whatever its type. */
export function downloadUrl(url: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}download=1`;
}

/** Whether an attachment carries links that still work for a while (`LINK_MARGIN_MS`). */
export function linksFresh(attachment: Attachment, now: number): boolean {
  if (!attachment.url || !attachment.expiresAt) return false;
  const expires = Date.parse(attachment.expiresAt);
  return Number.isFinite(expires) && expires - now > LINK_MARGIN_MS;
}

/** When to ask for fresh links: `LINK_MARGIN_MS` before they expire, at once when there are none. */
export function refreshDelay(attachment: Attachment, now: number): number {
  if (!attachment.url || !attachment.expiresAt) return 0;
  const expires = Date.parse(attachment.expiresAt);
  if (!Number.isFinite(expires)) return 0;
  return Math.max(MIN_REFRESH_MS, expires - LINK_MARGIN_MS - now);
}

/** "12 bytes", "340 KB", "1.2 MB", "10 GB" (decimal units, as disks and quotas are sold). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1000) return bytes === 1 ? "1 byte" : `${Math.round(bytes)} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const rounded = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  // 999.95 KB rounds to 1000 KB: say 1 MB.
  if (rounded >= 1000 && unit < units.length - 1) return `1 ${units[unit + 1]}`;
  return `${rounded} ${units[unit]}`;
}

// ---- files being put on a message -------------------------------------------------------------

export type DraftStatus = "uploading" | "ready" | "failed";

/** A file the person chose, pasted or dropped, on its way to being sent. */
export interface DraftFile {
  /** Local key (the record's id is known only once uploaded). */
  key: string;
  name: string;
  size: number;
  status: DraftStatus;
  /** The stored file, once uploaded. */
  attachment: Attachment | null;
  /** Why it was refused (an API `detail`), when failed. */
  error: string | null;
}

export type DraftAction =
  | { type: "added"; files: { key: string; name: string; size: number }[] }
  /** A file refused before upload (too large, one too many): shown as failed. */
  | { type: "refused"; key: string; name: string; size: number; error: string }
  | { type: "uploaded"; key: string; attachment: Attachment }
  | { type: "failed"; key: string; error: string }
  | { type: "removed"; key: string }
  | { type: "cleared" };

export function draftsReducer(drafts: readonly DraftFile[], action: DraftAction): DraftFile[] {
  const update = (key: string, change: (d: DraftFile) => DraftFile): DraftFile[] =>
    drafts.some((d) => d.key === key) ? drafts.map((d) => (d.key === key ? change(d) : d)) : [...drafts];
  switch (action.type) {
    case "added":
      return [
        ...drafts,
        ...action.files.map((f) => ({ ...f, status: "uploading" as const, attachment: null, error: null })),
      ];
    case "refused":
      return [
        ...drafts,
        { key: action.key, name: action.name, size: action.size, status: "failed", attachment: null, error: action.error },
      ];
    case "uploaded":
      // A file removed while it uploaded stays removed.
      return update(action.key, (d) => ({ ...d, status: "ready", attachment: action.attachment, error: null }));
    case "failed":
      return update(action.key, (d) => ({ ...d, status: "failed", error: action.error }));
    case "removed":
      return drafts.filter((d) => d.key !== action.key);
    case "cleared":
      return [];
  }
}

/** Files that count towards a message's limit: uploading or ready (failed ones do not). */
export function countedFiles(drafts: readonly DraftFile[]): number {
  return drafts.filter((d) => d.status !== "failed").length;
}

/** The ids to send with the message: the uploaded files, in the order they were added. */
export function readyIds(drafts: readonly DraftFile[]): string[] {
  return drafts.flatMap((d) => (d.status === "ready" && d.attachment ? [d.attachment.id] : []));
}

export function uploading(drafts: readonly DraftFile[]): boolean {
  return drafts.some((d) => d.status === "uploading");
}

/** A size limit as the API states it (25 MiB reads "25 MB", as people say it). */
export function limitText(maxBytes: number): string {
  return `${Math.round(maxBytes / (1024 * 1024))} MB`;
}

/**
 * Which of `files` to upload and which to refuse at once: files beyond the message's limit
 * (`room` left) and files larger than `maxBytes` are refused with a sentence saying why.
 */
export function admitFiles<F extends { name: string; size: number }>(
  files: readonly F[],
  room: number,
  maxBytes: number,
): { accepted: F[]; refused: { file: F; error: string }[] } {
  const accepted: F[] = [];
  const refused: { file: F; error: string }[] = [];
  for (const file of files) {
    if (file.size > maxBytes) {
      refused.push({ file, error: `${file.name} is larger than ${limitText(maxBytes)}, the largest file you can send.` });
    } else if (file.size === 0) {
      refused.push({ file, error: `${file.name} is empty.` });
    } else if (accepted.length >= room) {
      refused.push({ file, error: `${file.name} was not added: a message carries at most ${MAX_FILES_PER_MESSAGE} files.` });
    } else {
      accepted.push(file);
    }
  }
  return { accepted, refused };
}

/**
 * The files in a paste or a drop (`DataTransfer`), and whether the paste holds text as well
 * (then the text is pasted as usual besides). Clipboards name a screenshot "image.png" or
 * nothing: such a file is named for when it was pasted.
 */
export function transferFiles(
  transfer: Pick<DataTransfer, "files" | "types"> | null,
  now: Date = new Date(),
): { files: File[]; hasText: boolean } {
  if (!transfer) return { files: [], hasText: false };
  const files = Array.from(transfer.files ?? []).map((file) => renamePasted(file, now));
  return { files, hasText: Array.from(transfer.types ?? []).includes("text/plain") };
}

/** A file with a usable name: a clipboard's nameless or "image.png" image becomes "Screenshot <time>.png". */
export function pastedName(name: string, type: string, now: Date): string {
  if (name && name !== "image.png") return name;
  const extension = type.startsWith("image/") ? type.slice("image/".length).replace("jpeg", "jpg") : "bin";
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}.${pad(now.getMinutes())}.${pad(now.getSeconds())}`;
  return `Screenshot ${stamp}.${extension}`;
}

function renamePasted(file: File, now: Date): File {
  const name = pastedName(file.name, file.type, now);
  return name === file.name ? file : new File([file], name, { type: file.type, lastModified: file.lastModified });
}
