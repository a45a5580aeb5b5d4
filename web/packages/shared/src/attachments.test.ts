import { describe, expect, it } from "vitest";
import {
  admitFiles,
  type Attachment,
  countedFiles,
  downloadUrl,
  draftsReducer,
  fileUrl,
  formatBytes,
  isImage,
  linksFresh,
  MAX_FILES_PER_MESSAGE,
  pastedName,
  readyIds,
  refreshDelay,
  transferFiles,
  uploading,
} from "./attachments";

const NOW = Date.parse("2026-11-27T10:00:00Z");

function attachment(overrides: Partial<Attachment> = {}): Attachment {
  return {
    id: "a1",
    name: "shot.png",
    contentType: "image/png",
    size: 2048,
    hasThumbnail: true,
    url: "/files/w/a1/original?expires=1&signature=s",
    thumbnailUrl: "/files/w/a1/thumbnail?expires=1&signature=t",
    expiresAt: "2026-11-27T10:05:00Z",
    ...overrides,
  };
}

describe("links", () => {
  it("resolve root-relative paths against the API's base address, never the app's", () => {
    expect(fileUrl("https://api.example.com", "/files/w/a/original?expires=1&signature=x")).toBe(
      "https://api.example.com/files/w/a/original?expires=1&signature=x",
    );
    expect(fileUrl("https://example.com/api/", "/files/x")).toBe("https://example.com/api/files/x");
    expect(fileUrl("http://127.0.0.1:5000", "https://cdn.example.com/f")).toBe("https://cdn.example.com/f");
  });

  it("are no links when missing or not the API's", () => {
    expect(fileUrl("https://api.example.com", null)).toBeNull();
    expect(fileUrl("https://api.example.com", undefined)).toBeNull();
    expect(fileUrl("https://api.example.com", "javascript:alert(1)")).toBeNull();
    expect(fileUrl("https://api.example.com", "//evil.example/x")).toBeNull();
    expect(fileUrl("https://api.example.com", "files/x")).toBeNull();
  });

  it("ask for a download with download=1", () => {
    expect(downloadUrl("https://a/files/x?expires=1&signature=s")).toBe("https://a/files/x?expires=1&signature=s&download=1");
    expect(downloadUrl("https://a/files/x")).toBe("https://a/files/x?download=1");
  });

  it("are fresh until a minute before they expire", () => {
    expect(linksFresh(attachment(), NOW)).toBe(true);
    expect(linksFresh(attachment(), NOW + 4 * 60_000 + 1)).toBe(false);
    expect(linksFresh(attachment({ url: null }), NOW)).toBe(false);
    expect(linksFresh(attachment({ expiresAt: undefined }), NOW)).toBe(false);
  });

  it("are refreshed a minute before they expire, at once when absent, never in a tight loop", () => {
    expect(refreshDelay(attachment(), NOW)).toBe(4 * 60_000);
    expect(refreshDelay(attachment({ url: undefined, thumbnailUrl: undefined, expiresAt: undefined }), NOW)).toBe(0);
    expect(refreshDelay(attachment(), NOW + 10 * 60_000)).toBe(10_000);
  });
});

describe("files", () => {
  it("know which types are images shown inline", () => {
    expect(isImage("image/png")).toBe(true);
    expect(isImage("image/webp")).toBe(true);
    expect(isImage("image/svg+xml")).toBe(false);
    expect(isImage("application/pdf")).toBe(false);
  });

  it("read sizes in decimal units", () => {
    expect(formatBytes(0)).toBe("0 bytes");
    expect(formatBytes(1)).toBe("1 byte");
    expect(formatBytes(999)).toBe("999 bytes");
    expect(formatBytes(2048)).toBe("2 KB");
    expect(formatBytes(1_234_567)).toBe("1.2 MB");
    expect(formatBytes(25 * 1024 * 1024)).toBe("26 MB");
    expect(formatBytes(1_200_000_000)).toBe("1.2 GB");
    expect(formatBytes(10_000_000_000)).toBe("10 GB");
    expect(formatBytes(999_999)).toBe("1 MB");
  });

  it("admit files within the size and the message's limit, saying why others are refused", () => {
    const files = [
      { name: "a.pdf", size: 10 },
      { name: "huge.mov", size: 11 * 1024 * 1024 },
      { name: "empty.txt", size: 0 },
      { name: "b.png", size: 20 },
      { name: "c.png", size: 30 },
    ];
    const { accepted, refused } = admitFiles(files, 2, 10 * 1024 * 1024);
    expect(accepted.map((f) => f.name)).toEqual(["a.pdf", "b.png"]);
    expect(refused.map((r) => r.file.name)).toEqual(["huge.mov", "empty.txt", "c.png"]);
    expect(refused[0]?.error).toContain("huge.mov is larger than 10 MB");
    expect(refused[2]?.error).toContain(`at most ${MAX_FILES_PER_MESSAGE} files`);
  });

  it("name a pasted screenshot for when it was pasted, and keep real names", () => {
    const at = new Date(2026, 10, 27, 9, 5, 7);
    expect(pastedName("image.png", "image/png", at)).toBe("Screenshot 2026-11-27 09.05.07.png");
    expect(pastedName("", "image/jpeg", at)).toBe("Screenshot 2026-11-27 09.05.07.jpg");
    expect(pastedName("invoice.pdf", "application/pdf", at)).toBe("invoice.pdf");
  });

  it("take the files of a paste or a drop, and tell whether it holds text too", () => {
    const shot = new File([new Uint8Array([1, 2, 3])], "image.png", { type: "image/png" });
    const found = transferFiles({ files: [shot] as unknown as FileList, types: ["Files"] }, new Date(2026, 0, 2, 3, 4, 5));
    expect(found.hasText).toBe(false);
    expect(found.files.map((f) => [f.name, f.type, f.size])).toEqual([["Screenshot 2026-01-02 03.04.05.png", "image/png", 3]]);
    expect(transferFiles({ files: [] as unknown as FileList, types: ["text/plain"] }).hasText).toBe(true);
    expect(transferFiles(null)).toEqual({ files: [], hasText: false });
  });
});

describe("files on their way to a message", () => {
  const added = draftsReducer([], {
    type: "added",
    files: [
      { key: "k1", name: "a.png", size: 1 },
      { key: "k2", name: "b.pdf", size: 2 },
    ],
  });

  it("upload at once, and are sent once ready, in the order added", () => {
    expect(added.map((d) => d.status)).toEqual(["uploading", "uploading"]);
    expect(uploading(added)).toBe(true);
    const b = draftsReducer(added, { type: "uploaded", key: "k2", attachment: attachment({ id: "b" }) });
    const both = draftsReducer(b, { type: "uploaded", key: "k1", attachment: attachment({ id: "a" }) });
    expect(readyIds(b)).toEqual(["b"]);
    expect(readyIds(both)).toEqual(["a", "b"]);
    expect(uploading(both)).toBe(false);
    expect(draftsReducer(both, { type: "cleared" })).toEqual([]);
  });

  it("show a refusal, which does not count towards the limit, until removed", () => {
    const failed = draftsReducer(added, { type: "failed", key: "k1", error: "This type of file is refused" });
    expect(failed[0]).toMatchObject({ status: "failed", error: "This type of file is refused" });
    expect(countedFiles(failed)).toBe(1);
    const refused = draftsReducer(failed, { type: "refused", key: "k3", name: "big.iso", size: 9, error: "too large" });
    expect(refused.map((d) => d.status)).toEqual(["failed", "uploading", "failed"]);
    expect(draftsReducer(refused, { type: "removed", key: "k1" }).map((d) => d.key)).toEqual(["k2", "k3"]);
  });

  it("stay removed when an upload finishes after its removal", () => {
    const removed = draftsReducer(added, { type: "removed", key: "k1" });
    const late = draftsReducer(removed, { type: "uploaded", key: "k1", attachment: attachment() });
    expect(late.map((d) => d.key)).toEqual(["k2"]);
    expect(readyIds(late)).toEqual([]);
  });
});
