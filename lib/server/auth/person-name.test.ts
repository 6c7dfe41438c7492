import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { manageAccounts, openDatabaseAccounts } from "@/bin/manage-accounts";
import { runs, user } from "@/db/schema";
import { getDatabase } from "@/lib/server/database";
import type { AuditPage } from "@/lib/server/lists/list-audit";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// A person's name obeys one set of limits on every path that sets it, and what is shown of it is bounded.
const requestHeaders = vi.hoisted(() => ({ current: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let uninstall = async () => {};
let accounts: Record<Role, TestAccount>;
let service: RunService;
const HUGE = "x".repeat(5 * 1024 * 1024);
const WITH_NUL = "Ada\u0000Lovelace";

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  accounts = await createTestAccounts();
  service = await (await import("@/lib/server/server-context")).getRunService();
});
afterAll(async () => {
  await uninstall();
});

async function sessionCookie(email: string): Promise<string> {
  const { getAuth } = await import("../server-context");
  const signedIn = await (await getAuth()).api.signInEmail({
    body: { email, password: "test-password-1" },
    returnHeaders: true,
  });
  return (signedIn.headers.get("set-cookie") ?? "")
    .split(/,(?=\s*[\w.-]+=)/)
    .map((part) => part.split(";")[0]?.trim())
    .join("; ");
}

async function storedName(userId: string): Promise<string | undefined> {
  const [row] = await (await getDatabase()).db
    .select({ name: user.name })
    .from(user)
    .where(eq(user.id, userId));
  return row?.name;
}

describe("a person's name", () => {
  it("is checked on better-auth's own update-user: 413 for 5 MB, 400 naming the field for a NUL or a bad name, trimmed when fine", async () => {
    const { POST } = await import("@/app/api/auth/[...all]/route");
    const cookie = await sessionCookie(accounts.viewer.email);
    const update = (name: string) =>
      POST(
        new Request("http://test/api/auth/update-user", {
          method: "POST",
          headers: { cookie, origin: "http://test", host: "test", "content-type": "application/json" },
          body: JSON.stringify({ name }),
        }),
      );
    // Refused before better-auth reads the body, as every route refuses it (app/api/auth/[...all]/route.ts)…
    expect((await update(HUGE)).status).toBe(413);
    const withNul = await update(WITH_NUL);
    expect(withNul.status).toBe(400);
    expect((await withNul.json()).error.issues).toEqual([expect.objectContaining({ path: "name" })]);
    // …and by the rule every path that sets a name obeys, in better-auth's user hook.
    for (const name of ["   ", "Ada\u202Enimda"]) {
      const response = await update(name);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(/^name: /);
    }
    expect(await storedName(accounts.viewer.userId)).toBe("viewer tester");
    expect((await update("  Ada Viewer  ")).status).toBe(200);
    expect(await storedName(accounts.viewer.userId)).toBe("Ada Viewer");
  });

  it("is checked by POST /api/users and the add-user action", async () => {
    const { POST } = await import("@/app/api/users/route");
    const add = (name: string, password = "new-password-1") =>
      POST(
        new Request("http://test/api/users", {
          method: "POST",
          headers: { ...accounts.admin.headers, "content-type": "application/json" },
          body: JSON.stringify({ email: "new@test.example", name, role: "viewer", password }),
        }),
      );
    // A password better-auth would refuse (over 128 characters) is refused here, naming the field.
    const longPassword = await add("Long Password", "p".repeat(129));
    expect(longPassword.status).toBe(400);
    expect(await longPassword.json()).toMatchObject({
      error: { issues: [{ path: "password", message: "use at most 128 characters" }] },
    });
    // 5 MB is more than any body the API reads: refused before it is parsed.
    expect((await add(HUGE)).status).toBe(413);
    for (const name of ["y".repeat(101), WITH_NUL, "\t"]) {
      const response = await add(name);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { issues: [{ path: "name" }] } });
    }
    requestHeaders.current = new Headers({ origin: "http://test", ...accounts.admin.headers });
    const { addUserAction } = await import("@/app/actions/manage-accounts");
    expect(
      await addUserAction({
        email: "new@test.example",
        name: WITH_NUL,
        role: "viewer",
        password: "password-12",
      }),
    ).toMatchObject({
      ok: false,
      error: { code: "invalid_request", message: expect.stringContaining("name") },
    });
  });

  it("is checked on the CLI's user add, which goes through the same auth rules", async () => {
    const store = await openDatabaseAccounts(await getDatabase());
    vi.stubEnv("PLAYGROUND_NEW_PASSWORD", "cli-password-1");
    try {
      await expect(
        manageAccounts(store, {
          positionals: ["user", "add", "cli@test.example"],
          role: "viewer",
          name: WITH_NUL,
        }),
      ).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("name") });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("the audit names people by their email beside their name", () => {
  it("shows an approver who calls themself U-admin with their email, and filters by it", async () => {
    const { approver } = accounts;
    const { GET } = await import("@/app/api/audit/route");
    const tag = crypto.randomUUID().slice(0, 8);
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario(`${tag} named`)));
    await settled;
    const turnDigest = (await service.loadView(runId))?.pending?.turnDigest ?? "";
    await service.decide(runId, { approve: false, actor: "U-admin", actorId: approver.userId, turnDigest });
    const audit = async (query: string) =>
      (await (
        await GET(new Request(`http://test/api/audit${query}`, { headers: accounts.viewer.headers }))
      ).json()) as AuditPage;
    expect((await audit(`?run=${tag}`)).items).toMatchObject([
      { actor: "U-admin", actorEmail: approver.email },
    ]);
    expect((await audit(`?run=${tag}&actor=${approver.email.slice(0, 12)}`)).items).toHaveLength(1);
  });
});

describe("a name stored before names were limited", () => {
  it("is shown cut on the runs list, the inbox and the run, not megabytes of it", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario(`${tag} huge`)), {
      id: accounts.operator.userId,
      name: HUGE,
    });
    await settled;
    await (await getDatabase()).db.update(runs).set({ startedByName: HUGE }).where(eq(runs.id, runId));
    const headers = accounts.viewer.headers;
    for (const [path, load] of [
      ["/api/runs", async () => (await import("@/app/api/runs/route")).GET],
      ["/api/inbox", async () => (await import("@/app/api/inbox/route")).GET],
    ] as const) {
      const response = await (await load())(new Request(`http://test${path}?q=${tag}`, { headers }));
      expect(response.status, path).toBe(200);
      const text = await response.text();
      expect(text.length, path).toBeLessThan(20_000);
      expect(text, path).toContain("x".repeat(99));
    }
    const view = await service.loadView(runId);
    expect(view?.startedBy?.name.length).toBeLessThanOrEqual(100);

    await (await getDatabase()).db
      .update(user)
      .set({ name: HUGE })
      .where(eq(user.id, accounts.operator.userId));
    const { listUsers } = await import("./accounts");
    const listed = (await listUsers((await getDatabase()).db)).find(
      (row) => row.email === accounts.operator.email,
    );
    expect(listed?.name.length).toBeLessThanOrEqual(100);
    const { readIdentity } = await import("./identity");
    expect((await readIdentity(new Headers(accounts.operator.headers)))?.name.length).toBeLessThanOrEqual(
      100,
    );
  });
});
