// Errors from the API are RFC 9457 problem details ({type, title, status, detail, code, errors?});
// the person is shown `detail`. Anything else (a proxy's HTML error page, the network) becomes
// an ApiError too, with a message a person can act on.

import { parseRetryAfter, problemDetail } from "@supportdesk/shared/problem";

export const NETWORK_DETAIL = "Could not reach the Support Desk API. Check your connection and try again.";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  /** Validation errors by field (400 `validation_failed`). */
  readonly errors: Record<string, string[]>;
  /** Seconds, from Retry-After (429), when the browser may read it. */
  readonly retryAfter: number | null;

  constructor(init: { status: number; code: string; detail: string; errors?: Record<string, string[]>; retryAfter?: number | null }) {
    super(init.detail);
    this.name = "ApiError";
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors ?? {};
    this.retryAfter = init.retryAfter ?? null;
  }
}

function fieldErrors(value: unknown): Record<string, string[]> {
  if (!value || typeof value !== "object") return {};
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(messages)) out[field] = messages.filter((m): m is string => typeof m === "string");
    else if (typeof messages === "string") out[field] = [messages];
  }
  return out;
}

/** The ApiError for a failed response whose body was already read (JSON, text, or nothing). */
export function toApiError(status: number, body: unknown, headers?: Headers): ApiError {
  const problem = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  const detail = problemDetail(body) ?? `The Support Desk API answered with an error (${status}).`;
  return new ApiError({
    status,
    code: typeof problem.code === "string" ? problem.code : "http_error",
    detail,
    errors: fieldErrors(problem.errors),
    retryAfter: parseRetryAfter(headers?.get("Retry-After") ?? null),
  });
}

export function networkError(): ApiError {
  return new ApiError({ status: 0, code: "network", detail: NETWORK_DETAIL });
}

/** What to show a person for any thrown value. */
export function errorDetail(error: unknown): string {
  if (error instanceof ApiError) {
    return error.status === 429 && error.retryAfter !== null
      ? `${error.detail} Try again in ${error.retryAfter} s.`
      : error.detail;
  }
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong.";
}

/**
 * 403 codes meaning the person's access to the workspace ended (deactivated, removed, or the
 * workspace deleted), as opposed to an action their role does not allow.
 */
const ACCESS_ENDED_CODES = new Set(["membership_deactivated", "member_deactivated", "not_a_member", "workspace_deleted"]);

export function accessEnded(error: ApiError): boolean {
  return error.status === 403 && ACCESS_ENDED_CODES.has(error.code);
}
