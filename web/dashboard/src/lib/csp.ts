// The dashboard's Content-Security-Policy, built per request by the proxy (src/proxy.ts): it
// names the API and the hub, which are runtime settings (config.ts), and a fresh nonce, which
// Next puts on every script it renders. Scripts run only by that nonce (and what they load), so
// injected markup cannot run code; the page can talk to this server, the API and the hub only,
// and no other site may frame it (clickjacking). Images come from this server and from the API,
// whose signed file links show attachments' thumbnails; and from any http(s) address, for one
// reason: an email's HTML is shown in a sandboxed `srcdoc` frame, which inherits this policy on
// top of its own, and its own (lib/email) lets remote images in only once the agent asks for
// them for that message. The dashboard's markup never names a remote image itself.

import type { ApiConfig } from "@supportdesk/shared/config";
import { connectSrc, devEval, filesOrigin } from "@supportdesk/shared/csp";

export function dashboardCsp(config: ApiConfig, nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${devEval(dev)}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: ${filesOrigin(config)} https: http:`,
    connectSrc(config),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
