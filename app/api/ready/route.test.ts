import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let route: typeof import("./route");
let admin: TestAccount;
let approver: TestAccount;
const shippedMigrations = JSON.parse(readFileSync("db/migrations/meta/_journal.json", "utf8")).entries.length;

const setup = setUpRouteTests(["approver", "admin"]);

beforeAll(async () => {
  ({ admin, approver } = setup.accounts);
  route = await import("./route");
});
afterEach(() => vi.unstubAllEnvs());

const ready = (headers: Record<string, string> = {}) =>
  route.GET(new Request("http://test/api/ready", { headers }));

describe("GET /api/ready", () => {
  it("is not ready while this instance runs no background work and none is handed to workers", async () => {
    const response = await ready();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      ready: false,
      checks: {
        database: { ok: true, code: "answers" },
        migrations: { ok: true, code: "applied" },
        backgroundWork: { ok: false, code: "not_started" },
      },
    });
  });

  it("is ready when the database answers, every migration is applied and workers take the background work", async () => {
    vi.stubEnv("PLAYGROUND_BACKGROUND_WORK", "off");
    const response = await ready();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ready: true,
      checks: { backgroundWork: { ok: true, code: "left_to_workers" } },
    });
  });

  it("tells an admin the details, and nobody below an admin", async () => {
    const forAdmin = await (await ready(admin.headers)).json();
    expect(forAdmin.checks).toMatchObject({
      database: { ok: true, code: "answers", detail: expect.stringMatching(/answers$/) },
      migrations: { ok: true, detail: `${shippedMigrations} of ${shippedMigrations} applied` },
      backgroundWork: { detail: "not started" },
    });
    for (const headers of [approver.headers, { authorization: "Bearer tp_not-a-token" }]) {
      const body = await (await ready(headers)).json();
      expect(JSON.stringify(body)).not.toContain("detail");
    }
  });
});
