// The rating links of the "How did we do?" email open /rate?w=<workspaceId>&t=<token>&r=<1..5>,
// and the page records that score at once. What the page makes of a link and of each answer
// of `/widget/v1/rating-links` lives here, apart from React, so every wording is tested.

/** The API's limit for a comment; the textarea stops there. */
export const COMMENT_MAX_CHARS = 2000;

export interface RatingLink {
  workspaceId: string;
  /** The link's signed token: the only credential, never shown or logged. */
  token: string;
  /** 1 (very unhappy) to 5 (very happy). */
  rating: number;
}

/** An API answer: its status and JSON body (null when it had none); status 0 when none came. */
export interface Answer {
  status: number;
  body: unknown;
}

/** The page after `POST /widget/v1/rating-links`. */
export type RateOutcome =
  | { kind: "rated"; rating: number; conversationNumber: number; teamName: string }
  /** Nothing more to do: `tone` is how the message is announced (an error is an alert). */
  | { kind: "closed"; message: string; tone: "status" | "alert" }
  /** Worth trying again (busy, offline, a failure on the API's side). */
  | { kind: "retry"; message: string };

/** The comment form after `PATCH /widget/v1/rating-links`. */
export type CommentOutcome =
  /** Sent (or sent before): the form gives way to `message`. */
  | { kind: "done"; message: string }
  /** The comment cannot be sent at all any more: the form gives way to `message`, an alert. */
  | { kind: "closed"; message: string }
  /** The API refused the text: `message` goes beside the field, the form stays. */
  | { kind: "invalid"; message: string }
  /** Worth sending again: `message` is an alert above the button, the form stays. */
  | { kind: "retry"; message: string };

export const INCOMPLETE_LINK = "This rating link is incomplete.";
export const INVALID_LINK = "This rating link is not valid.";
export const EXPIRED_LINK = "This rating link has expired.";
export const ALREADY_RATED = "This conversation has already been rated. Thank you!";
export const REOPENED = "This conversation was reopened, so there is nothing to rate right now.";
export const COMMENT_SENT = "Thanks, we've passed your comment on.";
export const COMMENT_GIVEN = "Your comment was already sent. Thank you!";
const NETWORK = "We could not reach our service. Check your connection and try again.";
const BUSY = "Too many attempts just now. Please wait a moment and try again.";

/** The link's parts, or null when one is missing or the score is not a whole number 1 to 5. */
export function parseRatingLink(query: URLSearchParams): RatingLink | null {
  const workspaceId = query.get("w")?.trim();
  const token = query.get("t")?.trim();
  const score = query.get("r")?.trim();
  if (!workspaceId || !token || !score || !/^[1-5]$/.test(score)) return null;
  return { workspaceId, token, rating: Number(score) };
}

/** "You rated conversation #12 with Acme Support 4 of 5." */
export function ratedSentence({ rating, conversationNumber, teamName }: Extract<RateOutcome, { kind: "rated" }>): string {
  return `You rated conversation #${conversationNumber} with ${teamName} ${rating} of 5.`;
}

/** The comment to send: the draft trimmed, or null when blank (the API takes 1 to 2,000 characters). */
export function commentToSend(draft: string): string | null {
  const text = draft.trim();
  return text ? text : null;
}

export function rateOutcome(answer: Answer): RateOutcome {
  if (answer.status === 201) {
    const given = ratingGiven(answer.body);
    // Recorded, but an answer this page cannot read: thank without the details.
    return given ?? { kind: "closed", message: "Thank you! Your rating was recorded.", tone: "status" };
  }
  switch (answer.status) {
    case 0:
      return { kind: "retry", message: NETWORK };
    case 400: // the link's values refused (a workspace id that is no UUID): as good as tampered
    case 404:
      return { kind: "closed", message: INVALID_LINK, tone: "alert" };
    case 410:
      return { kind: "closed", message: EXPIRED_LINK, tone: "alert" };
    case 409:
      return conflictOutcome(answer.body);
    case 429:
      return { kind: "retry", message: BUSY };
    default:
      return { kind: "retry", message: serverTrouble(answer.status) };
  }
}

export function commentOutcome(answer: Answer): CommentOutcome {
  if (answer.status >= 200 && answer.status < 300) return { kind: "done", message: COMMENT_SENT };
  switch (answer.status) {
    case 0:
      return { kind: "retry", message: NETWORK };
    case 400:
      // The form sends 1 to 2,000 characters, so this is rare (a NUL, say): the API says why.
      return { kind: "invalid", message: fieldError(answer.body, "comment") ?? "This comment could not be sent. Please change it and try again." };
    case 404:
      return { kind: "closed", message: INVALID_LINK };
    case 410:
      return { kind: "closed", message: `${EXPIRED_LINK} Your rating counts, but the comment could not be sent.` };
    case 409:
      if (problemCode(answer.body) === "comment_given") return { kind: "done", message: COMMENT_GIVEN };
      return { kind: "closed", message: problemDetail(answer.body) ?? "This comment could not be sent." };
    case 429:
      return { kind: "retry", message: BUSY };
    default:
      return { kind: "retry", message: serverTrouble(answer.status) };
  }
}

function conflictOutcome(body: unknown): RateOutcome {
  switch (problemCode(body)) {
    case "already_rated":
      return { kind: "closed", message: ALREADY_RATED, tone: "status" };
    case "nothing_to_rate":
      return { kind: "closed", message: REOPENED, tone: "status" };
    default:
      return { kind: "closed", message: problemDetail(body) ?? "This conversation cannot be rated right now.", tone: "alert" };
  }
}

function serverTrouble(status: number): string {
  return `Something went wrong on our side (error ${status}). Please try again.`;
}

function ratingGiven(body: unknown): Extract<RateOutcome, { kind: "rated" }> | null {
  if (!isRecord(body) || !isRecord(body.rating)) return null;
  const { conversationNumber, teamName } = body;
  const { rating } = body.rating;
  if (typeof conversationNumber !== "number" || typeof teamName !== "string" || typeof rating !== "number") return null;
  return { kind: "rated", rating, conversationNumber, teamName };
}

function problemCode(body: unknown): string | null {
  return isRecord(body) && typeof body.code === "string" ? body.code : null;
}

function problemDetail(body: unknown): string | null {
  return isRecord(body) && typeof body.detail === "string" ? sentence(body.detail) : null;
}

/** The API's messages are lower-case phrases ("a comment is at most 2000 characters"): shown as sentences. */
export function sentence(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The first message of `errors[field]` (validation problems: `errors: {field: [messages]}`). */
function fieldError(body: unknown, field: string): string | null {
  if (!isRecord(body) || !isRecord(body.errors)) return problemDetail(body);
  const messages = body.errors[field];
  const first: unknown = Array.isArray(messages) ? messages[0] : messages;
  return (typeof first === "string" ? sentence(first) : null) ?? problemDetail(body);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
