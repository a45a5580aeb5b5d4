// How a customer's rating of a resolution reads to agents: a score out of 5 in words ("4 of
// 5"), the comment quoted, and the sentence of its activity line. Words first, so the score
// never rests on the stars alone. Pure.

import type { Rating } from "@/api/types";

/** The top of the scale: 1 (very unhappy) to 5 (very happy). */
export const RATING_SCALE = 5;

/** "4 of 5". */
export function ratingScore(rating: number): string {
  return `${rating} of ${RATING_SCALE}`;
}

/** "★★★★☆": the score drawn, beside its words (never instead of them). */
export function ratingStars(rating: number): string {
  const filled = Math.max(0, Math.min(RATING_SCALE, Math.round(rating)));
  return "★".repeat(filled) + "☆".repeat(RATING_SCALE - filled);
}

/** The comment as shown: trimmed, null when there is none to show. */
export function ratingComment(comment: string | null | undefined): string | null {
  const text = comment?.trim();
  return text ? text : null;
}

/** "The customer rated 4 of 5: “Fast, thanks!”", or without a comment "The customer rated 4 of 5". */
export function ratingSentence(rating: Pick<Rating, "rating" | "comment">): string {
  const comment = ratingComment(rating.comment);
  const said = `The customer rated ${ratingScore(rating.rating)}`;
  return comment ? `${said}: “${comment}”` : said;
}

/** A conversation's ratings, newest first (the API lists them oldest first). */
export function newestRatingsFirst(ratings: readonly Rating[] | undefined): Rating[] {
  return [...(ratings ?? [])].reverse();
}
