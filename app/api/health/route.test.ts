import { afterEach, describe, expect, it, vi } from "vitest";
import { replaceDatabase } from "@/lib/server/database";
import { captureLog } from "@/lib/server/testing/captured-log";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  replaceDatabase(undefined);
});

const request = () => new Request("http://test/api/health");

describe("GET /api/health", () => {
  it("answers ok after a real query, and nothing more to a stranger", async () => {
    vi.stubEnv("DATABASE_URL", "");
    vi.stubEnv("PGLITE_DATA_DIR", "memory://");
    // Opened first: a cold PGlite start can outlast the check's 3 s budget on a loaded 2-core
    // machine, and then the check rightly says the database did not answer in time.
    await (await import("@/lib/server/database")).getDatabase();
    const { GET } = await import("./route");
    const response = await GET(request());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("answers 503 with a fixed code when the database does not answer, and logs the driver's reason", async () => {
    const { lines, restore: restoreLogger } = captureLog();
    try {
      // Port 1 on loopback: nothing listens, so the connection is refused at once.
      vi.stubEnv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/secret_database_name");
      const { GET } = await import("./route");
      const response = await GET(request());
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        ok: false,
        error: {
          code: "database_unavailable",
          message: "The database does not answer; the server log says why.",
        },
      });
      expect(text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|secret_database_name|:1\b/);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "warn",
          msg: "health check: the database does not answer",
          reason: expect.stringMatching(/ECONNREFUSED|connect/),
        }),
      );
    } finally {
      restoreLogger();
    }
  });
});
