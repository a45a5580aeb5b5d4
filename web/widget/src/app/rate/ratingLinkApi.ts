// `/widget/v1/rating-links`, called from this app's origin (the API's CORS allows it). The
// link's token is the only credential: no visitor token, no cookies, no referrer. Every answer,
// a refusal too, comes back as its status and JSON body for the page to word
// (src/rate/ratingLink.ts); no answer at all is status 0.

import type { Answer, RatingLink } from "@/rate/ratingLink";

/** `POST`: records the link's score (201 with the conversation's number and the team's name). */
export function recordRating(apiUrl: string, { workspaceId, token, rating }: RatingLink): Promise<Answer> {
  return call(apiUrl, "POST", { workspaceId, token, rating });
}

/** `PATCH`: adds a comment to the rating this link made, once. */
export function addComment(apiUrl: string, { workspaceId, token }: RatingLink, comment: string): Promise<Answer> {
  return call(apiUrl, "PATCH", { workspaceId, token, comment });
}

async function call(apiUrl: string, method: "POST" | "PATCH", body: object): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/widget/v1/rating-links`, {
      method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch {
    return { status: 0, body: null };
  }
  let json: unknown = null;
  try {
    json = await response.json();
  } catch {
    // No JSON (a proxy's error page): the status alone decides.
  }
  return { status: response.status, body: json };
}
