// Liveness and readiness probe (interface spec: 200 with the text `OK`).
export const dynamic = "force-dynamic";

export function GET(): Response {
  return new Response("OK", {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
