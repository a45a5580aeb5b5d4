import type { NextConfig } from "next";

// The Docker image builds with NEXT_STANDALONE=1 for a self-contained server (node server.js);
// elsewhere the usual output, which `next start` serves (it refuses nothing, but warns, with
// standalone).
// Headers that depend on runtime settings (the chat page's Content-Security-Policy names the API
// and hub) are set per request in src/proxy.ts, not here: this file is read at build time.
const config: NextConfig = {
  output: process.env.NEXT_STANDALONE === "1" ? "standalone" : undefined,
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
