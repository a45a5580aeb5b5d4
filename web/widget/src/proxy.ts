// Runs on each request for /chat and /rate (Next's proxy, formerly middleware): sets the
// page's Content-Security-Policy from this server's environment and a per-request nonce
// (lib/csp.ts). Next reads the nonce from the request's policy header and puts it on its
// scripts; both pages are rendered per request (they await connection()). The chat is framed
// by the customer's pages; the rating page, opened from an email, by none.
import { NextResponse, type NextRequest } from "next/server";
import { newNonce } from "@supportdesk/shared/csp";
import { runtimeConfig } from "@/lib/config";
import { chatCsp } from "@/lib/csp";

export function proxy(request: NextRequest): NextResponse {
  const chat = chatCsp(runtimeConfig(), newNonce(), process.env.NODE_ENV === "development");
  const framed = request.nextUrl.pathname === "/chat";
  const csp = framed ? chat : `${chat}; frame-ancestors 'none'`;
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = { matcher: ["/chat", "/rate"] };
