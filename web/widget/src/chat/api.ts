// The visitor routes of the API (Bearer visitor token), called from the widget's own origin.
// Failures become ApiError carrying the problem+json `detail` the page shows. Files go up as
// multipart/form-data (one part named `file`), the browser writing the boundary.

import { NETWORK_DETAIL, problemOf, type Problem } from "@/lib/problem";
import type { Attachment, Availability, Contact, Conversation, MessageCreated, NewRating, Rating } from "./types";

/** Files a visitor may send: 10 MiB each (the API refuses more with 413). */
export const VISITOR_MAX_BYTES = 10 * 1024 * 1024;

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
  get status(): number {
    return this.problem.status;
  }
}

/** Each call takes the current visitor token (it changes hourly). */
export interface VisitorApi {
  conversation(token: string): Promise<Conversation | null>;
  /** `GET /widget/v1/availability`: whether the team is within its business hours, and until when. */
  availability(token: string): Promise<Availability>;
  /** `POST /widget/v1/messages`; with files, `attachmentIds` names them (the body may then be empty). */
  send(token: string, body: string, attachmentIds?: string[]): Promise<MessageCreated>;
  /** `POST /widget/v1/attachments` -> 201: the stored file, to send by id. */
  upload(token: string, file: File, signal?: AbortSignal): Promise<Attachment>;
  /** `GET /widget/v1/attachments/{id}`: a file with fresh links (good for five minutes). */
  attachment(token: string, id: string): Promise<Attachment>;
  saveContact(token: string, contact: { email?: string; name?: string }): Promise<Contact>;
  /** `PUT /widget/v1/context` -> 204: the page the visitor is on, for the agent's contact panel. */
  context(token: string, context: VisitorContext): Promise<void>;
  /** `POST /widget/v1/conversation/read` -> 204: the visitor has seen the conversation up to now. */
  markRead(token: string): Promise<void>;
  /** `POST /widget/v1/conversation/rating` -> 201: rates the resolution of the current conversation. */
  rate(token: string, rating: NewRating): Promise<Rating>;
}

export interface VisitorContext {
  pageUrl?: string;
  pageTitle?: string;
  referrer?: string;
  timeZone?: string;
  locale?: string;
}

export function visitorApi(apiUrl: string): VisitorApi {
  async function call<T>(token: string, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const form = body instanceof FormData;
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined || form ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : form ? body : JSON.stringify(body),
        credentials: "omit",
        cache: "no-store",
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError({ status: 0, detail: NETWORK_DETAIL, retryAfter: null });
    }
    if (!response.ok) throw new ApiError(await problemOf(response));
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    conversation: async (token) =>
      (await call<{ conversation: Conversation | null }>(token, "GET", "/widget/v1/conversation")).conversation,
    availability: (token) => call<Availability>(token, "GET", "/widget/v1/availability"),
    send: (token, body, attachmentIds = []) =>
      call<MessageCreated>(token, "POST", "/widget/v1/messages", attachmentIds.length ? { body, attachmentIds } : { body }),
    upload: (token, file, signal) => {
      const form = new FormData();
      form.append("file", file, file.name);
      return call<Attachment>(token, "POST", "/widget/v1/attachments", form, signal);
    },
    attachment: (token, id) => call<Attachment>(token, "GET", `/widget/v1/attachments/${encodeURIComponent(id)}`),
    saveContact: (token, contact) => call<Contact>(token, "POST", "/widget/v1/contact", contact),
    context: (token, context) => call<void>(token, "PUT", "/widget/v1/context", context),
    markRead: (token) => call<void>(token, "POST", "/widget/v1/conversation/read"),
    rate: (token, rating) => call<Rating>(token, "POST", "/widget/v1/conversation/rating", rating),
  };
}
