// Whether the workspace allows the page the loader runs on. The session route answers CORS only
// for allowed origins, so a refused page could not even read why it was refused: the loader asks
// a CORS-open route first, which says only whether the calling origin is allowed for the site
// key. A refused page shows the visitor nothing; its owner learns from the console what to add.

/** `refused`: the API said no. `unknown`: the check itself failed (network, an odd answer). */
export type OriginVerdict = "allowed" | "refused" | "unknown";

type Fetch = (input: string, init: RequestInit) => Promise<Pick<Response, "ok" | "json">>;

export function originCheckUrl(apiUrl: string, siteKey: string): string {
  return `${apiUrl}/widget/v1/sites/${encodeURIComponent(siteKey)}/origin-check`;
}

/** `GET .../origin-check` -> `{allowed: boolean}` for the calling page's origin. */
export async function checkOrigin(fetcher: Fetch, apiUrl: string, siteKey: string): Promise<OriginVerdict> {
  try {
    const response = await fetcher(originCheckUrl(apiUrl, siteKey), { credentials: "omit", cache: "no-store" });
    if (!response.ok) return "unknown";
    const body = (await response.json()) as { allowed?: unknown } | null;
    if (typeof body?.allowed !== "boolean") return "unknown";
    return body.allowed ? "allowed" : "refused";
  } catch {
    return "unknown";
  }
}

/** What the site owner reads in the browser console when the widget stays hidden. */
export function refusedOriginMessage(origin: string): string {
  return (
    `Support Desk: this page's origin ${origin} is not allowed for this widget. ` +
    "Add it in Settings → Chat widget → Allowed origins. If it is there already, check the script tag's " +
    "data-site-key (an unknown site key gets the same answer)."
  );
}
