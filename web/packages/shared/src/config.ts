// Runtime configuration, read from the environment when a request is served, so one build (one
// Docker image) fits every install. Next inlines `process.env.NEXT_PUBLIC_*` written as a
// literal member at build time; reading through a computed name keeps it a real lookup. Only
// server code reads it (a layout, page or route rendered per request, the proxy); it hands the
// values to the client as props.

export const DEFAULT_API_URL = "http://127.0.0.1:5000";

/** What both apps need: where the API and its chat hub are. */
export interface ApiConfig {
  /** API base address, without a trailing slash. */
  apiUrl: string;
  /** The chat hub; defaults to `${apiUrl}/hubs/chat`. */
  hubUrl: string;
}

export type Env = Record<string, string | undefined>;

/** `NEXT_PUBLIC_<suffix>`, by a computed name (see above). */
export function publicName(suffix: string): string {
  return `NEXT_PUBLIC_${suffix}`;
}

/**
 * An http(s) address without trailing slashes; a ws(s) one becomes its http(s) twin (the
 * SignalR client negotiates over HTTP first, then upgrades by itself). Anything else is
 * reported and replaced by `fallback`.
 */
export function httpUrl(name: string, value: string | undefined, fallback: string): string {
  const trimmed = value?.trim();
  if (!trimmed) return fallback;
  try {
    const url = new URL(trimmed);
    if (url.protocol === "http:" || url.protocol === "https:") return trimmed.replace(/\/+$/, "");
    if (url.protocol === "ws:" || url.protocol === "wss:") return trimmed.replace(/^ws/i, "http").replace(/\/+$/, "");
  } catch {
    // reported below
  }
  console.error(`${name}=${JSON.stringify(trimmed)} is not an http(s) URL; using ${fallback}`);
  return fallback;
}

/** A `NEXT_PUBLIC_<suffix>` address from `env`, or `fallback`. */
export function publicUrl(env: Env, suffix: string, fallback: string): string {
  const name = publicName(suffix);
  return httpUrl(name, env[name], fallback);
}

/** `NEXT_PUBLIC_API_URL` and `NEXT_PUBLIC_SIGNALR_URL` (default: the API's `/hubs/chat`). */
export function apiConfigFrom(env: Env): ApiConfig {
  const apiUrl = publicUrl(env, "API_URL", DEFAULT_API_URL);
  const hubUrl = publicUrl(env, "SIGNALR_URL", `${apiUrl}/hubs/chat`);
  return { apiUrl, hubUrl };
}
