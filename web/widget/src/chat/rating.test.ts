import { describe, expect, it } from "vitest";
import { choiceName, newRating, RATING_CHOICES } from "./rating";

describe("ratings", () => {
  it("offer 1 to 5, from very unhappy to very happy", () => {
    expect(RATING_CHOICES.map(choiceName)).toEqual([
      "1 of 5, very unhappy",
      "2 of 5, unhappy",
      "3 of 5, neutral",
      "4 of 5, happy",
      "5 of 5, very happy",
    ]);
  });

  it("send a trimmed comment, and none when it is blank", () => {
    expect(newRating(4, "  Quick and kind \n")).toEqual({ rating: 4, comment: "Quick and kind" });
    expect(newRating(2, "   ")).toEqual({ rating: 2 });
  });
});
