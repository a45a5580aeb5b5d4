import { defineConfig } from "vitest/config";

// Pure modules only (timing, protocol helpers, config): no DOM needed.
export default defineConfig({
  test: { environment: "node", include: ["src/**/*.test.ts"] },
});
