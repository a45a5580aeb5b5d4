import { describe, expect, it } from "vitest";
import { storagePercent, storageSentence } from "./storage";

describe("storage use", () => {
  it("reads as used of quota, and how many files", () => {
    expect(storageSentence({ usedBytes: 1_200_000_000, quotaBytes: 10_000_000_000, files: 34 })).toBe("1.2 GB of 10 GB used, 34 files");
    expect(storageSentence({ usedBytes: 2048, quotaBytes: 10_000_000_000, files: 1 })).toBe("2 KB of 10 GB used, 1 file");
    expect(storageSentence({ usedBytes: 0, quotaBytes: 5_000_000_000, files: 0 })).toBe("0 bytes of 5 GB used, 0 files");
  });

  it("is a share of the quota, never over 100", () => {
    expect(storagePercent({ usedBytes: 1_200_000_000, quotaBytes: 10_000_000_000, files: 3 })).toBe(12);
    expect(storagePercent({ usedBytes: 9_999, quotaBytes: 10_000, files: 3 })).toBe(99);
    expect(storagePercent({ usedBytes: 20, quotaBytes: 10, files: 3 })).toBe(100);
    expect(storagePercent({ usedBytes: 0, quotaBytes: 0, files: 0 })).toBe(100);
  });
});
