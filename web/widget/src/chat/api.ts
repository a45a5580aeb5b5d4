// The visitor routes of the API (Bearer visitor token), called from the widget's own origin.
// Failures become ApiError carrying the problem+json `detail` the page shows.

import { NETWORK_DETAIL, problemOf, type Problem } from "@/lib/problem";
import type { Contact, Conversation, MessageCreated } from "./types";

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
  send(token: string, body: string): Promise<MessageCreated>;
  saveContact(token: string, contact: { email?: string; name?: string }): Promise<Contact>;
  /** `PUT /widget/v1/context` -> 204: the page the visitor is on, for the agent's contact panel. */
  context(token: string, context: VisitorContext): Promise<void>;
  /** `POST /widget/v1/conversation/read` -> 204: the visitor has seen the conversation up to now. */
  markRead(token: string): Promise<void>;
}

export interface VisitorContext {
  pageUrl?: string;
  pageTitle?: string;
  referrer?: string;
  timeZone?: string;
  locale?: string;
}

export function visitorApi(apiUrl: string): VisitorApi {
  async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "omit",
        cache: "no-store",
      });
    } catch {
      throw new ApiError({ status: 0, detail: NETWORK_DETAIL, retryAfter: null });
    }
    if (!response.ok) throw new ApiError(await problemOf(response));
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    conversation: async (token) =>
      (await call<{ conversation: Conversation | null }>(token, "GET", "/widget/v1/conversation")).conversation,
    send: (token, body) => call<MessageCreated>(token, "POST", "/widget/v1/messages", { body }),
    saveContact: (token, contact) => call<Contact>(token, "POST", "/widget/v1/contact", contact),
    context: (token, context) => call<void>(token, "PUT", "/widget/v1/context", context),
    markRead: (token) => call<void>(token, "POST", "/widget/v1/conversation/read"),
  };
}
