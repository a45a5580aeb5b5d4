import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { LOADER_SOURCE } from "@/generated/loader";
import { renderLoader } from "./render";

describe("the served loader", () => {
  it("stays under 10 kB gzipped", () => {
    const size = gzipSync(renderLoader(LOADER_SOURCE, { apiUrl: "https://api.example.com" }), { level: 9 }).length;
    console.log(`loader gzipped: ${size} bytes`);
    expect(size).toBeLessThan(10 * 1024);
  });

  it("hands the runtime API address to the loader as a parameter, not a global", () => {
    const seen: unknown[] = [];
    const script = renderLoader("seen.push(__SUPPORTDESK__)", { apiUrl: "https://api.example.com/</script>" });
    const context = { seen };
    runInNewContext(script, context);
    expect(seen).toEqual([{ apiUrl: "https://api.example.com/</script>" }]);
    expect(script).not.toContain("</script>");
    expect(Object.keys(context)).toEqual(["seen"]);
  });

  it("carries no token or key", () => {
    expect(LOADER_SOURCE).not.toMatch(/swk_|eyJ|Bearer/);
  });
});
