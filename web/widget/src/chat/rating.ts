// How the visitor rates a resolution (CSAT): five choices from "very unhappy" to "very happy",
// each named in full for assistive technology, and the body the API takes (a comment is
// trimmed, and an empty one is none).

import type { NewRating } from "./types";

export interface RatingChoice {
  rating: number;
  /** How the visitor feels, for the accessible name ("4 of 5, happy"). */
  feeling: string;
}

export const RATING_CHOICES: readonly RatingChoice[] = [
  { rating: 1, feeling: "very unhappy" },
  { rating: 2, feeling: "unhappy" },
  { rating: 3, feeling: "neutral" },
  { rating: 4, feeling: "happy" },
  { rating: 5, feeling: "very happy" },
];

/** "4 of 5": how a rating reads. */
export function outOfFive(rating: number): string {
  return `${rating} of ${RATING_CHOICES.length}`;
}

/** "4 of 5, happy": a choice's accessible name, which begins with the number shown. */
export function choiceName({ rating, feeling }: RatingChoice): string {
  return `${outOfFive(rating)}, ${feeling}`;
}

export function newRating(rating: number, comment: string): NewRating {
  const text = comment.trim();
  return text ? { rating, comment: text } : { rating };
}
