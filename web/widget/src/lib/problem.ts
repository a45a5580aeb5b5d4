// Errors from the API are problem+json ({type, title, status, detail, code}); people are shown
// `detail`. Shared by the loader (session creation) and the chat page (visitor routes).

import { parseRetryAfter, problemDetail } from "@supportdesk/shared/problem";

export interface Problem {
  status: number;
  detail: string;
  /** Seconds, from Retry-After when the browser may read it (429). */
  retryAfter: number | null;
}

export const NETWORK_DETAIL = "Could not reach the chat service. Check your connection and try again.";

export async function problemOf(response: Response): Promise<Problem> {
  let detail: string | null = null;
  try {
    detail = problemDetail(await response.json());
  } catch {
    // Not JSON (a proxy's error page): fall back to the status below.
  }
  return {
    status: response.status,
    detail: detail ?? `The chat service answered with an error (${response.status}).`,
    retryAfter: parseRetryAfter(response.headers.get("Retry-After")),
  };
}
