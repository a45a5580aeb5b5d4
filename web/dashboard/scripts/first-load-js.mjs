// Measures a page's first-load JavaScript as a browser gets it: every <script src> in the
// server-rendered HTML, raw and gzipped. Next 16's build output no longer prints sizes.
// Usage: node scripts/first-load-js.mjs [base URL, default http://localhost:3000] [path, default /inbox]
import { gzipSync } from "node:zlib";

const base = process.argv[2] ?? "http://localhost:3000";
const path = process.argv[3] ?? "/inbox";
const html = await (await fetch(new URL(path, base))).text();
const sources = [...new Set([...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]))];
let raw = 0;
let gzip = 0;
for (const src of sources) {
  const body = Buffer.from(await (await fetch(new URL(src, base))).arrayBuffer());
  raw += body.length;
  gzip += gzipSync(body, { level: 9 }).length;
}
const kB = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log(`${path}: ${sources.length} scripts, first-load JS ${kB(raw)} (${kB(gzip)} gzipped)`);
