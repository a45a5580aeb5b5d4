// Pieces of the apps' Content-Security-Policies, which name the API and the hub (runtime
// settings), so each app's proxy builds its policy per request, never at build time.

import type { ApiConfig } from "./config";

/** `connect-src`: this server, the API, and the hub over HTTP (negotiate) and WebSocket. */
export function connectSrc({ apiUrl, hubUrl }: ApiConfig): string {
  const hub = new URL(hubUrl);
  const hubSocket = `${hub.protocol === "https:" ? "wss:" : "ws:"}//${hub.host}`;
  const sources = new Set(["'self'", new URL(apiUrl).origin, hub.origin, hubSocket]);
  return `connect-src ${[...sources].join(" ")}`;
}

/** The API's origin, where its signed file links point: `img-src` shows thumbnails from it. */
export function filesOrigin({ apiUrl }: ApiConfig): string {
  return new URL(apiUrl).origin;
}

/** React's development build needs eval; production never does. Appended to `script-src`. */
export function devEval(dev: boolean): string {
  return dev ? " 'unsafe-eval'" : "";
}

/** A nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
