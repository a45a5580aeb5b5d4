"use client";

// One click: the page records the link's score as it loads (once: the link is single-use, and
// strict mode replays effects), then thanks and offers an optional comment, or says why the
// link cannot rate. Messages are live regions: a status, or an alert for what went wrong.

import { useSearchParams } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import {
  COMMENT_MAX_CHARS,
  commentOutcome,
  commentToSend,
  INCOMPLETE_LINK,
  parseRatingLink,
  rateOutcome,
  ratedSentence,
  type CommentOutcome,
  type RateOutcome,
  type RatingLink,
} from "@/rate/ratingLink";
import { addComment, recordRating } from "./ratingLinkApi";
import styles from "./rate.module.css";

export function RateLink({ apiUrl }: { apiUrl: string }) {
  const query = useSearchParams();
  const link = useMemo(() => parseRatingLink(query), [query]);
  if (!link) {
    return (
      <>
        <h1 className={styles.heading}>Rate our help</h1>
        <p role="alert" className={styles.alert}>
          {INCOMPLETE_LINK}
        </p>
      </>
    );
  }
  return <RecordRating apiUrl={apiUrl} link={link} />;
}

function RecordRating({ apiUrl, link }: { apiUrl: string; link: RatingLink }) {
  /** null while the score is being recorded. */
  const [outcome, setOutcome] = useState<RateOutcome | null>(null);
  const [retrying, setRetrying] = useState(false);
  const recorded = useRef(false);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (recorded.current) return;
    recorded.current = true;
    void recordRating(apiUrl, link).then((answer) => setOutcome(rateOutcome(answer)));
  }, [apiUrl, link]);

  async function retry() {
    if (retrying) return;
    setRetrying(true);
    const next = rateOutcome(await recordRating(apiUrl, link));
    setRetrying(false);
    setOutcome(next);
    // The button pressed goes away: the focus goes to the top of what replaces it.
    if (next.kind !== "retry") heading.current?.focus();
  }

  return (
    <>
      <h1 ref={heading} tabIndex={-1} className={styles.heading}>
        {outcome?.kind === "rated" ? "Thank you!" : "Rate our help"}
      </h1>
      {outcome === null && (
        <p role="status" className={styles.message}>
          Recording your rating…
        </p>
      )}
      {outcome?.kind === "rated" && (
        <>
          <p role="status" className={styles.message}>
            {ratedSentence(outcome)}
          </p>
          <CommentForm apiUrl={apiUrl} link={link} />
        </>
      )}
      {outcome?.kind === "closed" && (
        <p role={outcome.tone} className={outcome.tone === "alert" ? styles.alert : styles.message}>
          {outcome.message}
        </p>
      )}
      {outcome?.kind === "retry" && (
        <>
          <p role="alert" className={styles.alert}>
            {outcome.message}
          </p>
          <button type="button" className={styles.button} onClick={retry} aria-disabled={retrying || undefined} aria-busy={retrying || undefined}>
            Try again
          </button>
        </>
      )}
    </>
  );
}

function CommentForm({ apiUrl, link }: { apiUrl: string; link: RatingLink }) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<CommentOutcome | null>(null);
  const id = useId();
  const ended = useRef<HTMLParagraphElement>(null);
  const finished = outcome?.kind === "done" || outcome?.kind === "closed";

  useEffect(() => {
    // The form the focus was in is gone: the message that replaced it takes the focus.
    if (finished) ended.current?.focus();
  }, [finished]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const comment = commentToSend(draft);
    if (!comment || sending) return;
    setSending(true);
    const next = commentOutcome(await addComment(apiUrl, link, comment));
    setSending(false);
    setOutcome(next);
  }

  if (outcome?.kind === "done" || outcome?.kind === "closed") {
    return (
      <p ref={ended} tabIndex={-1} role={outcome.kind === "done" ? "status" : "alert"} className={outcome.kind === "done" ? styles.message : styles.alert}>
        {outcome.message}
      </p>
    );
  }

  const invalid = outcome?.kind === "invalid" ? outcome.message : null;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <form className={styles.form} onSubmit={submit}>
      <label htmlFor={`${id}-comment`} className={styles.label}>
        Anything you&apos;d like to add? (optional)
      </label>
      <textarea
        id={`${id}-comment`}
        className={styles.comment}
        rows={4}
        maxLength={COMMENT_MAX_CHARS}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        aria-describedby={invalid ? `${hintId} ${errorId}` : hintId}
        aria-invalid={invalid ? true : undefined}
      />
      <p id={hintId} className={styles.hint}>
        Up to {COMMENT_MAX_CHARS.toLocaleString("en")} characters.
      </p>
      {invalid && (
        <p id={errorId} role="alert" className={styles.alert}>
          {invalid}
        </p>
      )}
      {outcome?.kind === "retry" && (
        <p role="alert" className={styles.alert}>
          {outcome.message}
        </p>
      )}
      <button type="submit" className={styles.button} disabled={commentToSend(draft) === null} aria-busy={sending || undefined}>
        Send comment
      </button>
    </form>
  );
}
