import { afterAll, beforeAll } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import type { Role } from "@/lib/wire/roles";
import type { RunService } from "../runs/run-service";
import { installProcessTestDatabase } from "./process-test-database";
import { createTestAccounts, type TestAccount } from "./test-accounts";

export interface RouteTestSetup {
  /** The test database the routes use (set before the file's own `beforeAll` runs). */
  handle: DatabaseHandle;
  /** One signed-in account per role asked for. */
  accounts: Record<Role, TestAccount>;
  /** The run service the routes use; built on first ask, so a test may stub the environment first. */
  runService(): Promise<RunService>;
  /** A JSON request to a route, as the account of that role. */
  request(role: Role, url: string, init?: RequestInit): Request;
  /** A POST of a JSON body, as the account of that role. */
  post(role: Role, url: string, body: unknown): Request;
}

/** The second argument a dynamic route's handler gets, for `[id]`. */
export const routeParams = (id: string) => ({ params: Promise.resolve({ id }) });

/**
 * The set-up every route and action test shares: before the file's tests, the
 * process's database (the one routes and server actions open) is a fresh test
 * database and the accounts asked for exist; after them, it is all removed.
 * Call it at the top of the file, above its own `beforeAll`, which then imports
 * the routes (they must not be imported before the database is swapped) and
 * which runs after this one; its own `afterAll` runs before the clean-up.
 */
export function setUpRouteTests(roles?: readonly Role[]): RouteTestSetup {
  let uninstall = async () => {};
  const setup: RouteTestSetup = {
    handle: undefined as unknown as DatabaseHandle,
    accounts: {} as Record<Role, TestAccount>,
    runService: async () => (await import("../server-context")).getRunService(),
    request: (role, url, init = {}) =>
      new Request(url, {
        ...init,
        headers: { "content-type": "application/json", ...setup.accounts[role].headers },
      }),
    post: (role, url, body) => setup.request(role, url, { method: "POST", body: JSON.stringify(body) }),
  };
  beforeAll(async () => {
    const installed = await installProcessTestDatabase();
    uninstall = installed.uninstall;
    setup.handle = installed.handle;
    setup.accounts = await createTestAccounts(roles);
  });
  afterAll(() => uninstall());
  return setup;
}
