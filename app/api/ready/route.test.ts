import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";

let uninstall = async () => {};
let route: typeof import("./route");
const shippedMigrations = JSON.parse(readFileSync("db/migrations/meta/_journal.json", "utf8")).entries.length;

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  route = await import("./route");
});
afterAll(() => uninstall());
afterEach(() => vi.unstubAllEnvs());

describe("GET /api/ready", () => {
  it("is not ready while this instance runs no background work and none is handed to workers", async () => {
    const response = await route.GET();
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      ready: false,
      checks: {
        database: { ok: true },
        migrations: { ok: true, detail: `${shippedMigrations} of ${shippedMigrations} applied` },
        backgroundWork: { ok: false, detail: "not started" },
      },
    });
  });

  it("is ready when the database answers, every migration is applied and workers take the background work", async () => {
    vi.stubEnv("PLAYGROUND_BACKGROUND_WORK", "off");
    const response = await route.GET();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ready: true, checks: { backgroundWork: { ok: true } } });
  });
});
