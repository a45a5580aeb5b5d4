// The chat and rating pages' Content-Security-Policy. It names the API and the hub, which are
// runtime settings (config.ts), and a fresh nonce, which Next puts on every script it renders,
// so the proxy (src/proxy.ts) builds it per request, never at build. Scripts run only by that
// nonce (and what they load): injected markup cannot run code in a page that holds a visitor's
// token. Images: logos and avatars from any https host, and attachments' thumbnails from the
// API (which may be plain http in development). No frame-ancestors: any site the workspace
// allows embeds the chat (the API checks origins); the proxy forbids framing the rating page.

import type { ApiConfig } from "@supportdesk/shared/config";
import { connectSrc, devEval, filesOrigin } from "@supportdesk/shared/csp";

export function chatCsp(config: ApiConfig, nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `img-src 'self' https: data: ${filesOrigin(config)}`,
    connectSrc(config),
    "style-src 'self' 'unsafe-inline'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${devEval(dev)}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}
