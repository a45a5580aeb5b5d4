// Errors from the API are RFC 9457 problem details ({type, title, status, detail, code,
// errors?}); people are shown `detail`. What both apps read from them (the widget's loader too).

/** Retry-After is seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The text to show from a problem body: `detail`, else `title`; null for anything else (a proxy's page). */
export function problemDetail(body: unknown): string | null {
  if (!body || typeof body !== "object") return null;
  // No destructuring: the widget's loader bundles this for older browsers (esbuild, es2019).
  const problem = body as { detail?: unknown; title?: unknown };
  if (typeof problem.detail === "string" && problem.detail) return problem.detail;
  if (typeof problem.title === "string" && problem.title) return problem.title;
  return null;
}
