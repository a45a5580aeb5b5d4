// The dashboard's Content-Security-Policy, built per request by the proxy (src/proxy.ts): it
// names the API and the hub, which are runtime settings (config.ts), and a fresh nonce, which
// Next puts on every script it renders. Scripts run only by that nonce (and what they load), so
// injected markup cannot run code; the page can talk to this server, the API and the hub only,
// and no other site may frame it (clickjacking).

import type { RuntimeConfig } from "./config";

export function dashboardCsp({ apiUrl, hubUrl }: RuntimeConfig, nonce: string, dev = false): string {
  const hub = new URL(hubUrl);
  const hubSocket = `${hub.protocol === "https:" ? "wss:" : "ws:"}//${hub.host}`;
  const connect = new Set(["'self'", new URL(apiUrl).origin, hub.origin, hubSocket]);
  return [
    "default-src 'self'",
    // React's development build needs eval; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${[...connect].join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
