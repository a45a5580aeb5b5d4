import type { NextConfig } from "next";

// The Docker image builds with NEXT_STANDALONE=1 for a self-contained server (node server.js);
// elsewhere the usual output, which `next start` serves (it refuses nothing, but warns, with
// standalone).
// The Content-Security-Policy names runtime settings and a per-request nonce, so src/proxy.ts
// sets it; the fixed headers below go on every response. No Referer leaves the dashboard: its
// addresses can hold one-time tokens (verification, password reset, invitations).
const config: NextConfig = {
  output: process.env.NEXT_STANDALONE === "1" ? "standalone" : undefined,
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
