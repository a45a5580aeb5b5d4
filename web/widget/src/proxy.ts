// Runs on each request for /chat (Next's proxy, formerly middleware): sets the page's
// Content-Security-Policy from this server's environment at request time (lib/csp.ts).
import { NextResponse } from "next/server";
import { runtimeConfig } from "@/lib/config";
import { chatCsp } from "@/lib/csp";

export function proxy(): NextResponse {
  const response = NextResponse.next();
  response.headers.set("Content-Security-Policy", chatCsp(runtimeConfig(), process.env.NODE_ENV === "development"));
  return response;
}

export const config = { matcher: "/chat" };
