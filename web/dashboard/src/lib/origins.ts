// The allowed-origins editor: one origin per line, as a browser sends it (scheme, host, port;
// no path). The API normalises and validates too; this catches typos before the round trip.

export function parseOrigins(text: string): { origins: string[]; invalid: string[] } {
  const origins: string[] = [];
  const invalid: string[] = [];
  for (const line of text.split(/[\n,]/)) {
    const value = line.trim();
    if (!value) continue;
    try {
      const url = new URL(value);
      if ((url.protocol !== "http:" && url.protocol !== "https:") || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
        invalid.push(value);
      } else if (!origins.includes(url.origin)) {
        origins.push(url.origin);
      }
    } catch {
      invalid.push(value);
    }
  }
  return { origins, invalid };
}

/** The tag a customer pastes into their site. */
export function embedSnippet(widgetUrl: string, siteKey: string): string {
  return `<script src="${widgetUrl}/widget.js" data-site-key="${siteKey}" async></script>`;
}
