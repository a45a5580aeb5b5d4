// The chat page's Content-Security-Policy. It names the API and the hub, which are runtime
// settings (config.ts), so the proxy (src/proxy.ts) builds it per request, never at build.
// No frame-ancestors: any site the workspace allows embeds the page (the API checks origins).

import type { RuntimeConfig } from "./config";

export function chatCsp({ apiUrl, hubUrl }: RuntimeConfig, dev = false): string {
  const hub = new URL(hubUrl);
  const hubSocket = `${hub.protocol === "https:" ? "wss:" : "ws:"}//${hub.host}`;
  const connect = new Set(["'self'", new URL(apiUrl).origin, hub.origin, hubSocket]);
  return [
    "default-src 'self'",
    "img-src 'self' https: data:",
    `connect-src ${[...connect].join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    // React's development build needs eval; production never does.
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  ].join("; ");
}
