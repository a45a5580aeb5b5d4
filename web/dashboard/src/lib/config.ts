// Runtime configuration, read from the environment when a request is served, so one build
// (one Docker image) fits every install. Next inlines `process.env.NEXT_PUBLIC_*` written as a
// literal member at build time; reading through a computed name keeps it a real lookup. Only
// server code calls `runtimeConfig()` (the root layout, rendered per request); it hands the
// values to the client as props.

export const DEFAULT_API_URL = "http://127.0.0.1:5000";
export const DEFAULT_WIDGET_URL = "http://localhost:3001";

export interface RuntimeConfig {
  /** API base address, without a trailing slash. */
  apiUrl: string;
  /** The chat hub; defaults to `${apiUrl}/hubs/chat`. */
  hubUrl: string;
  /** The chat widget app, for the embed snippet; defaults to http://localhost:3001. */
  widgetUrl: string;
}

type Env = Record<string, string | undefined>;

function httpUrl(name: string, value: string | undefined, fallback: string): string {
  const trimmed = value?.trim();
  if (!trimmed) return fallback;
  try {
    const url = new URL(trimmed);
    if (url.protocol === "http:" || url.protocol === "https:") return trimmed.replace(/\/+$/, "");
    // The SignalR client negotiates over HTTP(S) first, then upgrades by itself.
    if (url.protocol === "ws:" || url.protocol === "wss:") return trimmed.replace(/^ws/i, "http").replace(/\/+$/, "");
  } catch {
    // reported below
  }
  console.error(`${name}=${JSON.stringify(trimmed)} is not an http(s) URL; using ${fallback}`);
  return fallback;
}

function name(suffix: string): string {
  return `NEXT_PUBLIC_${suffix}`;
}

export function configFrom(env: Env): RuntimeConfig {
  const apiUrl = httpUrl(name("API_URL"), env[name("API_URL")], DEFAULT_API_URL);
  const hubUrl = httpUrl(name("SIGNALR_URL"), env[name("SIGNALR_URL")], `${apiUrl}/hubs/chat`);
  const widgetUrl = httpUrl(name("WIDGET_URL"), env[name("WIDGET_URL")], DEFAULT_WIDGET_URL);
  return { apiUrl, hubUrl, widgetUrl };
}

export function runtimeConfig(): RuntimeConfig {
  return configFrom(process.env);
}
