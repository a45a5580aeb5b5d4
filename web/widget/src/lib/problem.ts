// Errors from the API are problem+json ({type, title, status, detail, code}); people are shown
// `detail`. Shared by the loader (session creation) and the chat page (visitor routes).

export interface Problem {
  status: number;
  detail: string;
  /** Seconds, from Retry-After when the browser may read it (429). */
  retryAfter: number | null;
}

export const NETWORK_DETAIL = "Could not reach the chat service. Check your connection and try again.";

/** Retry-After is seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export async function problemOf(response: Response): Promise<Problem> {
  let detail = "";
  try {
    const body = (await response.json()) as { detail?: unknown; title?: unknown };
    detail = typeof body.detail === "string" && body.detail ? body.detail : typeof body.title === "string" ? body.title : "";
  } catch {
    // Not JSON (a proxy's error page): fall back to the status below.
  }
  return {
    status: response.status,
    detail: detail || `The chat service answered with an error (${response.status}).`,
    retryAfter: parseRetryAfter(response.headers.get("Retry-After")),
  };
}
