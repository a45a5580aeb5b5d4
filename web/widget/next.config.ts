import path from "node:path";
import type { NextConfig } from "next";

// The Docker image builds with NEXT_STANDALONE=1 for a self-contained server (node
// APP/server.js); elsewhere the usual output, which `next start` serves (it refuses nothing, but
// warns, with standalone).
// The app is a member of the npm workspace web/: its packages are installed in web/node_modules,
// and @supportdesk/shared (web/packages/shared) is TypeScript that Next compiles as the app's
// own (transpilePackages). web/ is the root for Turbopack and for the standalone output's file
// tracing, which then mirrors it (.next/standalone/APP/server.js, .next/standalone/node_modules).
// Headers that depend on runtime settings (the chat page's Content-Security-Policy names the API
// and hub) are set per request in src/proxy.ts, not here: this file is read at build time.
const config: NextConfig = {
  output: process.env.NEXT_STANDALONE === "1" ? "standalone" : undefined,
  outputFileTracingRoot: path.join(__dirname, ".."),
  transpilePackages: ["@supportdesk/shared"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
