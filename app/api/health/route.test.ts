import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  delete (globalThis as { toolPlaygroundDatabase?: unknown }).toolPlaygroundDatabase;
});

describe("GET /api/health", () => {
  it("answers ok with the driver after a real query", async () => {
    vi.stubEnv("DATABASE_URL", "");
    vi.stubEnv("PGLITE_DATA_DIR", "memory://");
    // Opened first: a cold PGlite start can outlast the check's 3 s budget on a loaded 2-core
    // machine, and then the check rightly says the database did not answer in time.
    await (await import("@/db/client")).getDatabase();
    const { GET } = await import("./route");
    const response = await GET();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, database: "pglite" });
  });

  it("answers 503 with a reason when the database does not answer", async () => {
    // Port 1 on loopback: nothing listens, so the connection is refused at once.
    vi.stubEnv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none");
    const { GET } = await import("./route");
    const response = await GET();
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe("database_unavailable");
    expect(body.error.message).toMatch(/does not answer/);
  });
});
