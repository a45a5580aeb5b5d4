"use client";

// The customer's ratings of a conversation's resolutions (CSAT), in the conversation's header,
// newest first: the score in words ("Rating: 4 of 5", the stars beside it only drawn), the
// comment quoted, and when it was given. Nothing while the conversation has none.

import type { Rating } from "@/api/types";
import { formatTime } from "@/components/ui";
import { newestRatingsFirst, ratingComment, ratingScore, ratingStars } from "@/lib/ratings";
import { fullTime } from "@/lib/time";

export function ConversationRatings({ ratings }: { ratings: readonly Rating[] | undefined }) {
  const shown = newestRatingsFirst(ratings);
  if (shown.length === 0) return null;
  return (
    <ul className="conversation-ratings" aria-label="Customer ratings">
      {shown.map((rating) => {
        const comment = ratingComment(rating.comment);
        return (
          <li key={rating.id}>
            <span className="rating-stars" aria-hidden="true">
              {ratingStars(rating.rating)}
            </span>{" "}
            <strong>Rating: {ratingScore(rating.rating)}</strong>
            {comment ? (
              <>
                {" "}
                <q className="rating-comment">{comment}</q>
              </>
            ) : null}{" "}
            <time className="muted" dateTime={rating.createdAt} title={fullTime(rating.createdAt)}>
              {formatTime(rating.createdAt)}
            </time>
          </li>
        );
      })}
    </ul>
  );
}
