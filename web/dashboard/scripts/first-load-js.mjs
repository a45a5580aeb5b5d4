// Measures a page's first-load JavaScript as a browser gets it: every <script src> in the
// server-rendered HTML, raw and gzipped, except `nomodule` ones (the legacy polyfill, which
// every browser that runs modules skips; counted apart). Next 16's build output no longer
// prints sizes.
// Usage: node scripts/first-load-js.mjs [base URL, default http://localhost:3000] [path, default /inbox]
import { gzipSync } from "node:zlib";

const base = process.argv[2] ?? "http://localhost:3000";
const path = process.argv[3] ?? "/inbox";
const html = await (await fetch(new URL(path, base))).text();
const tags = [...html.matchAll(/<script[^>]+src="([^"]+)"[^>]*>/g)];
const legacy = (tag) => /\snomodule(\s|=|>)/i.test(tag);
const sources = [...new Set(tags.filter((m) => !legacy(m[0])).map((m) => m[1]))];
const skipped = [...new Set(tags.filter((m) => legacy(m[0])).map((m) => m[1]))];
const size = async (list) => {
  let raw = 0;
  let gzip = 0;
  for (const src of list) {
    const body = Buffer.from(await (await fetch(new URL(src, base))).arrayBuffer());
    raw += body.length;
    gzip += gzipSync(body, { level: 9 }).length;
  }
  return { raw, gzip };
};
const kB = (n) => `${(n / 1024).toFixed(1)} kB`;
const loaded = await size(sources);
const polyfill = await size(skipped);
console.log(`${path}: ${sources.length} scripts, first-load JS ${kB(loaded.raw)} (${kB(loaded.gzip)} gzipped)`);
if (skipped.length > 0) {
  console.log(`  not loaded by module browsers: ${skipped.length} nomodule script(s), ${kB(polyfill.gzip)} gzipped`);
}
