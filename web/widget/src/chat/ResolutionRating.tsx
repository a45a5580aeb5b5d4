"use client";

// Customer satisfaction, under the resolved notice: when the workspace asks, the visitor rates
// the help 1 to 5 (a radio group, so arrow keys choose) with an optional comment; once rated,
// the rating given shows instead. Mounted per resolution, so a thank-you belongs to the rating
// just given. Refusals show in the chat's alert, like every visitor action's.

import { useEffect, useRef, useState, type FormEvent } from "react";
import { choiceName, outOfFive, RATING_CHOICES } from "./rating";
import type { ConversationInfo } from "./state";
import type { Chat } from "./useChat";

export function ResolutionRating({ conversation, rate }: { conversation: ConversationInfo; rate: Chat["rate"] }) {
  const [thanked, setThanked] = useState(false);
  if (conversation.rating) return <RatingGiven rating={conversation.rating.rating} thanked={thanked} />;
  if (!conversation.askForRating) return null;
  return <RatingForm rate={rate} onRated={() => setThanked(true)} />;
}

/** The rating given; just given, it thanks and takes the focus from the form it replaces. */
function RatingGiven({ rating, thanked }: { rating: number; thanked: boolean }) {
  const shown = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // No scrolling here: the chat keeps its end in view (scrolling could move the host page).
    if (thanked) shown.current?.focus({ preventScroll: true });
  }, [thanked]);
  return (
    <div ref={shown} className="rating-given" tabIndex={-1}>
      {thanked && <p className="rating-thanks">Thanks for your rating!</p>}
      <p>You rated {outOfFive(rating)}.</p>
    </div>
  );
}

function RatingForm({ rate, onRated }: { rate: Chat["rate"]; onRated: () => void }) {
  const [chosen, setChosen] = useState<number | null>(null);
  const [comment, setComment] = useState("");
  const [sending, setSending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (chosen === null || sending) return;
    setSending(true);
    const stored = await rate(chosen, comment);
    setSending(false);
    if (stored) onRated();
  }

  return (
    <form className="rating" onSubmit={submit}>
      <fieldset>
        <legend>How would you rate our help?</legend>
        <div className="rating-choices">
          {RATING_CHOICES.map((choice) => (
            <label key={choice.rating} className="rating-choice">
              <input
                type="radio"
                name="rating"
                value={choice.rating}
                aria-label={choiceName(choice)}
                className="visually-hidden"
                checked={chosen === choice.rating}
                onChange={() => setChosen(choice.rating)}
              />
              <span className="rating-face">
                {choice.rating}
              </span>
            </label>
          ))}
        </div>
        <p className="rating-scale" aria-hidden="true">
          <span>Very unhappy</span>
          <span>Very happy</span>
        </p>
      </fieldset>
      <label htmlFor="rating-comment">Comment (optional)</label>
      <textarea id="rating-comment" rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
      <button type="submit" disabled={chosen === null || sending} aria-busy={sending || undefined}>
        Submit rating
      </button>
    </form>
  );
}
