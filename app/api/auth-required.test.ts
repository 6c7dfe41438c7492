import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { revokeToken } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Who may call what, through the real route handlers: nobody unnamed, and nobody above their role.
let accounts: Record<Role, TestAccount>;
type Handler = (request: Request, context?: { params: Promise<{ id: string }> }) => Promise<Response>;
let routes: Array<{
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  handler: Handler;
  role: Role;
  body?: unknown;
}>;
const RUN_ID = "00000000-0000-4000-8000-000000000000";
const POLICY = "rules:\n  - name: a\n    effect: allow\n";
const context = (id = RUN_ID) => ({ params: Promise.resolve({ id }) });

const setup = setUpRouteTests();

beforeAll(async () => {
  vi.stubEnv("PLAYGROUND_FAULTS", "1");
  accounts = setup.accounts;
  const runs = await import("./runs/route");
  const run = await import("./runs/[id]/route");
  routes = [
    {
      name: "POST /api/runs",
      method: "POST",
      handler: runs.POST,
      role: "operator",
      body: gatedWriteScenario("x"),
    },
    { name: "GET /api/runs/[id]", method: "GET", handler: run.GET, role: "viewer" },
    {
      name: "GET /api/runs/[id]/report",
      method: "GET",
      handler: (await import("./runs/[id]/report/route")).GET,
      role: "viewer",
    },
    {
      name: "GET /api/runs/[id]/view",
      method: "GET",
      handler: (await import("./runs/[id]/view/route")).GET,
      role: "viewer",
    },
    {
      name: "GET /api/runs/[id]/fork",
      method: "GET",
      handler: (await import("./runs/[id]/fork/route")).GET,
      role: "viewer",
    },
    {
      name: "GET /api/runs/[id]/events",
      method: "GET",
      handler: (await import("./runs/[id]/events/route")).GET,
      role: "viewer",
    },
    {
      name: "POST /api/runs/[id]/decision",
      method: "POST",
      handler: (await import("./runs/[id]/decision/route")).POST,
      role: "approver",
      body: { approve: false },
    },
    {
      name: "POST /api/runs/[id]/cancel",
      method: "POST",
      handler: (await import("./runs/[id]/cancel/route")).POST,
      role: "operator",
      body: { scope: "run" },
    },
    { name: "GET /api/inbox", method: "GET", handler: (await import("./inbox/route")).GET, role: "viewer" },
    {
      name: "GET /api/inbox/events",
      method: "GET",
      handler: (await import("./inbox/events/route")).GET,
      role: "viewer",
    },
    { name: "GET /api/faults", method: "GET", handler: (await import("./faults/route")).GET, role: "admin" },
    {
      name: "POST /api/faults",
      method: "POST",
      handler: (await import("./faults/route")).POST,
      role: "admin",
      body: { target: "steps", failNext: 0 },
    },
    {
      name: "POST /api/faults/streams",
      method: "POST",
      handler: (await import("./faults/streams/route")).POST,
      role: "admin",
      body: {},
    },
    {
      name: "POST /api/faults/unreadable-state",
      method: "POST",
      handler: (await import("./faults/unreadable-state/route")).POST,
      role: "admin",
      body: { runId: RUN_ID },
    },
    { name: "GET /api/users", method: "GET", handler: (await import("./users/route")).GET, role: "admin" },
    {
      name: "POST /api/users",
      method: "POST",
      handler: (await import("./users/route")).POST,
      role: "admin",
      body: { email: "eve@example.com", name: "Eve", role: "admin", password: "eve-password-1" },
    },
    {
      name: "PATCH /api/users/[email]",
      method: "PATCH",
      handler: (await import("./users/[email]/route")).PATCH as unknown as Handler,
      role: "admin",
      body: { role: "viewer" },
    },
    {
      name: "DELETE /api/users/[email]",
      method: "DELETE",
      handler: (await import("./users/[email]/route")).DELETE as unknown as Handler,
      role: "admin",
    },
    {
      name: "POST /api/account/password",
      method: "POST",
      handler: (await import("./account/password/route")).POST,
      role: "viewer",
      body: { currentPassword: "not-the-password", newPassword: "new-password-1" },
    },
    { name: "GET /api/tokens", method: "GET", handler: (await import("./tokens/route")).GET, role: "admin" },
    {
      name: "POST /api/tokens",
      method: "POST",
      handler: (await import("./tokens/route")).POST,
      role: "admin",
      body: { email: "viewer@example.com", name: "x" },
    },
    {
      name: "DELETE /api/tokens/[id]",
      method: "DELETE",
      handler: (await import("./tokens/[id]/route")).DELETE as unknown as Handler,
      role: "admin",
    },
    {
      name: "GET /api/policies",
      method: "GET",
      handler: (await import("./policies/route")).GET,
      role: "admin",
    },
    {
      name: "POST /api/policies",
      method: "POST",
      handler: (await import("./policies/route")).POST,
      role: "admin",
      body: { document: POLICY, mode: "shadow" },
    },
    {
      name: "POST /api/policies/check",
      method: "POST",
      handler: (await import("./policies/check/route")).POST,
      role: "admin",
      body: { document: POLICY },
    },
    {
      name: "POST /api/policies/backtest",
      method: "POST",
      handler: (await import("./policies/backtest/route")).POST,
      role: "admin",
      body: { document: POLICY, since: "2026-01-01T00:00:00Z", tool: "write_file", runIds: [RUN_ID] },
    },
    {
      name: "GET /api/grants",
      method: "GET",
      handler: (await import("./grants/route")).GET,
      role: "viewer",
    },
    {
      name: "DELETE /api/grants/[id]",
      method: "DELETE",
      handler: (await import("./grants/[id]/route")).DELETE as unknown as Handler,
      role: "approver",
    },
    {
      name: "GET /api/policies/disagreements",
      method: "GET",
      handler: (await import("./policies/disagreements/route")).GET,
      role: "admin",
    },
  ];
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

function request(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  headers: Record<string, string>,
  body?: unknown,
) {
  return new Request("http://test/api", {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe("every API route requires an identity holding its role", () => {
  it("answers 401 unauthenticated without credentials, or with a token that is not one, saying which", async () => {
    for (const route of routes) {
      const attempts: Array<[Record<string, string>, string]> = [
        [{}, "Sign in, or send an API token"],
        [{ authorization: "Bearer tp_not-a-real-token" }, "The API token sent is not valid"],
        [{ authorization: "Basic abc" }, "The Authorization header is not an API token"],
        [{ cookie: "better-auth.session_token=forged.value" }, "The session has ended or is not valid"],
      ];
      for (const [headers, message] of attempts) {
        const response = await route.handler(request(route.method, headers, route.body), context());
        expect(response.status, route.name).toBe(401);
        expect(await response.json()).toMatchObject({
          error: { code: "unauthenticated", message: expect.stringContaining(message) },
          pending: null,
        });
      }
    }
  });

  it("answers 403 forbidden, naming the role needed and the caller's, to a role below the route's", async () => {
    for (const route of routes.filter((candidate) => candidate.role !== "viewer")) {
      const response = await route.handler(
        request(route.method, accounts.viewer.headers, route.body),
        context(),
      );
      expect(response.status, route.name).toBe(403);
      const body = await response.json();
      expect(body.error.code).toBe("forbidden");
      // Nothing about what the role is for: GET /api/policies is not managing users and tokens.
      expect(body.error.message, route.name).toBe(
        `This needs the ${route.role} role; ${accounts.viewer.email} is viewer.`,
      );
    }
  });

  it("lets a token act only while it exists: a revoked token is refused at once", async () => {
    const { viewer } = await createTestAccounts(["viewer"]);
    const inbox = routes.find((route) => route.name === "GET /api/inbox");
    if (!inbox) throw new Error("no inbox route");
    expect((await inbox.handler(request("GET", viewer.headers))).status).toBe(200);
    const { listTokens } = await import("@/lib/server/auth/accounts");
    const { db } = await getDatabase();
    const token = (await listTokens(db)).find((candidate) => candidate.ownerEmail === viewer.email);
    if (!token) throw new Error("the token is not listed");
    await revokeToken(db, token.id);
    const refused = await inbox.handler(request("GET", viewer.headers));
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.message).toContain("The API token sent is not valid");
  });

  it("never sends a token back, in any response", async () => {
    const runs = routes[0];
    if (!runs) throw new Error("no route");
    const started = await runs.handler(
      request("POST", accounts.operator.headers, gatedWriteScenario("no echo")),
    );
    const { runId } = await started.json();
    for (const route of routes.filter(
      (candidate) => candidate.method === "GET" && !candidate.name.endsWith("events"),
    )) {
      const response = await route.handler(request("GET", accounts.admin.headers), context(runId));
      const text = await response.text();
      for (const account of Object.values(accounts)) expect(text, route.name).not.toContain(account.token);
    }
  });
});

describe("the sign-in endpoints", () => {
  it("offer no way to act as someone else: impersonation is switched off, even for an admin", async () => {
    const { getAuth } = await import("@/lib/server/server-context");
    const { POST } = await import("./auth/[...all]/route");
    const auth = await getAuth();
    const signedIn = await auth.api.signInEmail({
      body: { email: accounts.admin.email, password: "test-password-1" },
      returnHeaders: true,
    });
    const cookie = (signedIn.headers.get("set-cookie") ?? "")
      .split(/,(?=\s*[\w.-]+=)/)
      .map((part) => part.split(";")[0]?.trim())
      .join("; ");
    const response = await POST(
      new Request("http://test/api/auth/admin/impersonate-user", {
        method: "POST",
        headers: { cookie, origin: "http://test", host: "test", "content-type": "application/json" },
        body: JSON.stringify({ userId: accounts.approver.userId }),
      }),
    );
    expect(response.status).toBe(404);
    // Account changes go through the app's own rules and audit (lib/server/auth/account-changes.ts) only.
    for (const [path, body] of [
      ["admin/set-role", { userId: accounts.approver.userId, role: "viewer" }],
      ["admin/ban-user", { userId: accounts.approver.userId }],
      ["admin/unban-user", { userId: accounts.approver.userId }],
      ["admin/remove-user", { userId: accounts.approver.userId }],
      ["admin/set-user-password", { userId: accounts.approver.userId, newPassword: "new-password-1" }],
      ["admin/update-user", { userId: accounts.approver.userId, data: { role: "viewer" } }],
      ["admin/create-user", { email: "x@example.com", password: "new-password-1", name: "X" }],
      ["change-password", { currentPassword: "test-password-1", newPassword: "new-password-1" }],
      ["set-password", { newPassword: "new-password-1" }],
    ] as const) {
      const refused = await POST(
        new Request(`http://test/api/auth/${path}`, {
          method: "POST",
          headers: { cookie, origin: "http://test", host: "test", "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      expect(refused.status, path).toBe(404);
    }
    const { listUsers } = await import("@/lib/server/auth/accounts");
    const { db } = await getDatabase();
    expect((await listUsers(db)).find((row) => row.email === accounts.approver.email)?.role).toBe("approver");
  });
});
