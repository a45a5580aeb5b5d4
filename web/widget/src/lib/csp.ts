// The chat page's Content-Security-Policy. It names the API and the hub, which are runtime
// settings (config.ts), so the proxy (src/proxy.ts) builds it per request, never at build.
// Images: logos and avatars from any https host, and attachments' thumbnails from the API (which
// may be plain http in development). No frame-ancestors: any site the workspace allows embeds
// the page (the API checks origins).

import type { ApiConfig } from "@supportdesk/shared/config";
import { connectSrc, devEval, filesOrigin } from "@supportdesk/shared/csp";

export function chatCsp(config: ApiConfig, dev = false): string {
  return [
    "default-src 'self'",
    `img-src 'self' https: data: ${filesOrigin(config)}`,
    connectSrc(config),
    "style-src 'self' 'unsafe-inline'",
    `script-src 'self' 'unsafe-inline'${devEval(dev)}`,
  ].join("; ");
}
