import { availableParallelism } from "node:os";
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
      "docs/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    environment: "node",
    // The server's warnings and errors are kept per test and printed only when it fails
    // (lib/server/testing/log-on-failure.ts); a test that reads its lines captures its own.
    env: { LOG_LEVEL: "warn" },
    setupFiles: ["lib/server/testing/log-on-failure.ts"],
    // CI also writes machine-readable results, which .ci/run adds up.
    reporters: process.env.VITEST_JSON_FILE ? ["default", "json"] : ["default"],
    outputFile: process.env.VITEST_JSON_FILE ? { json: process.env.VITEST_JSON_FILE } : undefined,
    // Vitest's default is one worker less than the cores: one worker on a 2-core laptop, which runs the
    // ~90 files one after another although most of their time is spent waiting (on a tool's delay, a
    // child process, a database). Files never share state (each has its own database), so two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    // expect.poll waits for an outcome; its default of 1 s is a guess at how long that takes, which a
    // busy machine outgrows (a cancelled MCP call reaching its server, say). The test's own timeout
    // still bounds it.
    expect: { poll: { timeout: 25_000 } },
    hookTimeout: 60_000,
  },
});
