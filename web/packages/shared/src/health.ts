// The liveness and readiness probe both apps answer at GET /healthz (interface spec: 200 with
// the text `OK`). Each app's route file keeps `dynamic = "force-dynamic"` (Next reads segment
// options from the route file itself) and returns this.

export function healthResponse(): Response {
  return new Response("OK", {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
