// Runs on each page request (Next's proxy, formerly middleware): the Content-Security-Policy
// names runtime settings and a per-request nonce (lib/csp.ts), so it is made here, never at
// build time. Next reads the nonce from the request's policy header and puts it on its scripts;
// every page is rendered per request already (the root layout awaits connection()).
import { type NextRequest, NextResponse } from "next/server";
import { newNonce } from "@supportdesk/shared/csp";
import { runtimeConfig } from "@/lib/config";
import { dashboardCsp } from "@/lib/csp";

export function proxy(request: NextRequest): NextResponse {
  const csp = dashboardCsp(runtimeConfig(), newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

// Pages only: not the build's static files, not the health check.
export const config = { matcher: "/((?!_next/static|_next/image|icon.svg|healthz).*)" };
