// The one typed API client. Paths, parameters and bodies are checked against `schema.ts`, which
// `npm run gen:api` generates from the API's OpenAPI document (`openapi.json`). Three views of
// one client differ only in the credential they send: none, the user token, the workspace token.
// Every failure is thrown as an ApiError (see `unwrap`); a 401 on a call that sent a token ends
// the session, and a 403 saying the membership is gone leaves the workspace (see `ApiHooks`),
// unless the token refused is no longer the tab's: a late answer to a call made before the
// token was renewed, or before another workspace was selected, says nothing about the session.

import createClient, { type Client, type Middleware } from "openapi-fetch";
import { accessEnded, ApiError, networkError, toApiError } from "./errors";
import type { paths } from "./schema";

export type Credential = "none" | "user" | "workspace";

export interface ApiHooks {
  token(credential: Exclude<Credential, "none">): string | null;
  /** A sent token was refused (expired, revoked): back to sign-in. */
  unauthorized(credential: Exclude<Credential, "none">): void;
  /** The workspace refused a member who was deactivated or removed, or it was deleted. */
  accessEnded(detail: string): void;
}

export type ApiClient = Client<paths>;

export interface Api {
  anon: ApiClient;
  user: ApiClient;
  workspace: ApiClient;
}

function credentialMiddleware(credential: Credential, hooks: ApiHooks): Middleware {
  return {
    onRequest({ request }) {
      if (credential === "none") return request;
      const token = hooks.token(credential);
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
    async onResponse({ request, response }) {
      if (credential === "none" || !request.headers.has("Authorization")) return response;
      if (request.headers.get("Authorization") !== `Bearer ${hooks.token(credential)}`) return response;
      if (response.status === 401) {
        hooks.unauthorized(credential);
      } else if (response.status === 403 && credential === "workspace") {
        const body: unknown = await response
          .clone()
          .json()
          .catch(() => null);
        const error = toApiError(response.status, body, response.headers);
        if (accessEnded(error)) hooks.accessEnded(error.detail);
      }
      return response;
    },
  };
}

/** `fetchImpl` is for tests; browsers use their own `fetch`. */
export function createApi(baseUrl: string, hooks: ApiHooks, fetchImpl?: typeof fetch): Api {
  const make = (credential: Credential): ApiClient => {
    const client = createClient<paths>({ baseUrl, credentials: "omit", ...(fetchImpl ? { fetch: fetchImpl } : {}) });
    client.use(credentialMiddleware(credential, hooks));
    return client;
  };
  return { anon: make("none"), user: make("user"), workspace: make("workspace") };
}

interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The response's data, or an ApiError carrying the problem's `detail`, `code`, `status`, `errors`. */
export async function unwrap<D>(call: Promise<Answer<D>>): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw networkError();
  }
  const { data, error, response } = answer;
  if (!response.ok) throw toApiError(response.status, error, response.headers);
  return data as D;
}
