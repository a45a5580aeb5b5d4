import path from "node:path";
import type { NextConfig } from "next";

// The Docker image builds with NEXT_STANDALONE=1 for a self-contained server (node
// APP/server.js); elsewhere the usual output, which `next start` serves (it refuses nothing, but
// warns, with standalone).
// The app is a member of the npm workspace web/: its packages are installed in web/node_modules,
// and @supportdesk/shared (web/packages/shared) is TypeScript that Next compiles as the app's
// own (transpilePackages). web/ is the root for Turbopack and for the standalone output's file
// tracing, which then mirrors it (.next/standalone/APP/server.js, .next/standalone/node_modules).
// The Content-Security-Policy names runtime settings and a per-request nonce, so src/proxy.ts
// sets it; the fixed headers below go on every response. No Referer leaves the dashboard: its
// addresses can hold one-time tokens (verification, password reset, invitations).
const config: NextConfig = {
  output: process.env.NEXT_STANDALONE === "1" ? "standalone" : undefined,
  outputFileTracingRoot: path.join(__dirname, ".."),
  transpilePackages: ["@supportdesk/shared"],
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Referrer-Policy", value: "no-referrer" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default config;
