import type { NextConfig } from "next";

// The Docker image builds with NEXT_STANDALONE=1 for a self-contained server (node server.js);
// elsewhere the usual output, which `next start` serves (it refuses nothing, but warns, with
// standalone).
const config: NextConfig = {
  output: process.env.NEXT_STANDALONE === "1" ? "standalone" : undefined,
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
