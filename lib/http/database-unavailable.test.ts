import { afterEach, describe, expect, it, vi } from "vitest";
import { StoreUnavailableError } from "@/lib/runtime";

const lookups = vi.hoisted(() => ({
  identity: null as unknown,
  /** Answers of the next lookups, before `identity` (a lookup that failed, then one that did not). */
  answers: [] as unknown[],
  throws: null as unknown,
  databaseUp: true,
}));

vi.mock("@/lib/server/auth/identity", () => ({
  readIdentity: async () => {
    if (lookups.throws) throw lookups.throws;
    return lookups.answers.length > 0 ? lookups.answers.shift() : lookups.identity;
  },
}));
vi.mock("@/lib/server/ops/check-database-health", () => ({
  checkDatabaseHealth: async () =>
    lookups.databaseUp ? { ok: true, database: "postgres" } : { ok: false, reason: "ECONNREFUSED" },
}));

const { handleRoute } = await import("./api-route");

const route = handleRoute({ role: "viewer" }, async () => {
  throw new StoreUnavailableError("connection terminated");
});
const ok = handleRoute({ role: "viewer" }, async () => Response.json({ ok: true }));
const withToken = () =>
  new Request("http://localhost/api/runs", { headers: { authorization: "Bearer tp_valid" } });

const ADA = {
  userId: "u",
  name: "Ada",
  email: "ada@example.com",
  role: "admin",
  personRole: "admin",
  via: "token",
  sessionId: null,
};

afterEach(() => {
  lookups.identity = null;
  lookups.answers = [];
  lookups.throws = null;
  lookups.databaseUp = true;
});

describe("a database outage as an API client sees it", () => {
  it("answers a valid token 503 database_unavailable with Retry-After, never 401, when the lookup finds nothing for want of a database", async () => {
    lookups.databaseUp = false;
    const response = await ok(withToken());
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ error: { code: "database_unavailable" } });
  });

  it("answers 503, not 500, when the lookup itself throws while the database is down", async () => {
    lookups.databaseUp = false;
    lookups.throws = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    const response = await ok(withToken());
    expect(response.status).toBe(503);
  });

  it("still answers an unknown token 401 while the database is up", async () => {
    const response = await ok(withToken());
    expect(response.status).toBe(401);
  });

  it("looks a token up again when the database came back between its lookup and the check: the valid token passes", async () => {
    // The first lookup failed for want of a database (better-auth says: no key); by the check it is back.
    lookups.answers = [null];
    lookups.identity = ADA;
    const response = await ok(withToken());
    expect(response.status).toBe(200);
  });

  it("answers a request without credentials 401 without asking the database", async () => {
    lookups.databaseUp = false;
    const response = await ok(new Request("http://localhost/api/runs"));
    expect(response.status).toBe(401);
  });

  it("maps a store that cannot be reached, and a driver's connection error, to 503 with Retry-After", async () => {
    lookups.identity = {
      userId: "u",
      name: "Ada",
      email: "ada@example.com",
      role: "admin",
      personRole: "admin",
      via: "token",
      sessionId: null,
    };
    const response = await route(withToken());
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const driver = handleRoute({ role: "viewer" }, async () => {
      throw new Error("Failed query", {
        cause: Object.assign(new Error("terminating connection"), { code: "57P01" }),
      });
    });
    expect((await driver(withToken())).status).toBe(503);
  });
});
