// Runtime configuration, read from the environment when a request is served, so one build
// (one Docker image) fits every install. Next inlines `process.env.NEXT_PUBLIC_*` written as a
// literal member at build time; reading through a variable name keeps it a real lookup. Only
// server code calls this (pages and route handlers that opt into dynamic rendering).

export const DEFAULT_API_URL = "http://127.0.0.1:5000";

export interface RuntimeConfig {
  /** API base address, without a trailing slash. */
  apiUrl: string;
  /** The chat hub; defaults to `${apiUrl}/hubs/chat`. */
  hubUrl: string;
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

export function configFrom(env: Env): RuntimeConfig {
  const apiUrl = httpUrl("NEXT_PUBLIC_API_URL", env[name("API_URL")], DEFAULT_API_URL);
  const hubUrl = httpUrl("NEXT_PUBLIC_SIGNALR_URL", env[name("SIGNALR_URL")], `${apiUrl}/hubs/chat`);
  return { apiUrl, hubUrl };
}

function name(suffix: string): string {
  return `NEXT_PUBLIC_${suffix}`;
}

export function runtimeConfig(): RuntimeConfig {
  return configFrom(process.env);
}
