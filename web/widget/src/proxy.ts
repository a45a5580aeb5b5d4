// Runs on each request for /chat and /rate (Next's proxy, formerly middleware): sets the
// page's Content-Security-Policy from this server's environment at request time (lib/csp.ts).
// The chat is framed by the customer's pages; the rating page, opened from an email, by none.
import { NextResponse, type NextRequest } from "next/server";
import { runtimeConfig } from "@/lib/config";
import { chatCsp } from "@/lib/csp";

export function proxy(request: NextRequest): NextResponse {
  const response = NextResponse.next();
  const csp = chatCsp(runtimeConfig(), process.env.NODE_ENV === "development");
  const framed = request.nextUrl.pathname === "/chat";
  response.headers.set("Content-Security-Policy", framed ? csp : `${csp}; frame-ancestors 'none'`);
  return response;
}

export const config = { matcher: ["/chat", "/rate"] };
