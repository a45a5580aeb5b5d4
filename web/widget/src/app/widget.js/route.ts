// The loader script customers embed. Rendered per request so NEXT_PUBLIC_API_URL comes from
// this server's environment at run time (see lib/config.ts and loader/render.ts).
import { connection } from "next/server";
import { LOADER_SOURCE } from "@/generated/loader";
import { runtimeConfig } from "@/lib/config";
import { renderLoader } from "@/loader/render";

export async function GET(): Promise<Response> {
  await connection();
  const body = renderLoader(LOADER_SOURCE, { apiUrl: runtimeConfig().apiUrl });
  return new Response(body, {
    headers: {
      "Content-Type": "application/javascript; charset=utf-8",
      // Short: a new release (or API address) reaches customers' pages within minutes.
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
      // Lets the customer's page use Subresource Integrity or crossorigin="anonymous".
      "Access-Control-Allow-Origin": "*",
    },
  });
}
