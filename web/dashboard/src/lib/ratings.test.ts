import { describe, expect, it } from "vitest";
import type { Rating } from "@/api/types";
import { newestRatingsFirst, ratingComment, ratingScore, ratingSentence, ratingStars } from "./ratings";

const rating = (id: string, score: number, comment: string | null = null): Rating => ({
  id,
  rating: score,
  comment,
  resolvedAt: "2026-11-26T10:00:00Z",
  createdAt: "2026-11-26T10:01:00Z",
});

describe("a customer's rating in words", () => {
  it("gives the score out of 5, the stars only beside it", () => {
    expect(ratingScore(4)).toBe("4 of 5");
    expect(ratingStars(4)).toBe("★★★★☆");
    expect(ratingStars(1)).toBe("★☆☆☆☆");
    expect(ratingStars(5)).toBe("★★★★★");
  });

  it("quotes the comment, and says nothing of a blank one", () => {
    expect(ratingSentence(rating("r", 4, "Fast, thanks!"))).toBe("The customer rated 4 of 5: “Fast, thanks!”");
    expect(ratingSentence(rating("r", 4))).toBe("The customer rated 4 of 5");
    expect(ratingSentence(rating("r", 2, "   "))).toBe("The customer rated 2 of 5");
    expect(ratingComment("  Slow ")).toBe("Slow");
    expect(ratingComment(undefined)).toBeNull();
  });

  it("lists the newest first", () => {
    expect(newestRatingsFirst([rating("first", 2), rating("second", 5)]).map((r) => r.id)).toEqual(["second", "first"]);
    expect(newestRatingsFirst(undefined)).toEqual([]);
  });
});
