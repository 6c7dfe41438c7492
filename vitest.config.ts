import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // Tests run server code outside React's server bundle, where the marker would throw.
      "server-only": fileURLToPath(new URL("node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: [
      "lib/**/*.test.ts",
      "db/**/*.test.ts",
      "bin/**/*.test.ts",
      "app/**/*.test.ts",
      "components/**/*.test.ts",
    ],
    environment: "node",
    // The server's JSON log lines stay out of test output unless they are warnings (a test that reads logs captures its own).
    env: { LOG_LEVEL: "warn" },
    // CI also writes machine-readable results, which .ci/run adds up.
    reporters: process.env.VITEST_JSON_FILE ? ["default", "json"] : ["default"],
    outputFile: process.env.VITEST_JSON_FILE ? { json: process.env.VITEST_JSON_FILE } : undefined,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
