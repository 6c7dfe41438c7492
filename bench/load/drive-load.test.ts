import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriverName } from "@/db/testing/test-database";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { agentApiRoutes, serveRoutes } from "@/lib/server/testing/serve-routes";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";
import { checkAgainstScripts, driveLoad } from "./drive-load";

// The load generator's own correctness on a small scale (issue #35): agents and approvers at once
// over loopback HTTP, every request counted, every run checked against its script.
let uninstall = async () => {};
let accounts: Record<Role, TestAccount>;
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  accounts = await createTestAccounts(["agent", "approver"]);
  const inbox = await import("@/app/api/inbox/route");
  const decision = await import("@/app/api/runs/[id]/decision/route");
  server = await serveRoutes([
    ...(await agentApiRoutes()),
    { method: "GET", path: "/api/inbox", handler: inbox.GET },
    { method: "POST", path: "/api/runs/:id/decision", handler: decision.POST },
  ]);
});
afterAll(async () => {
  await server?.close();
  await uninstall();
});

describe(`the load generator's traffic (${testDriverName})`, () => {
  it("ends every run as its script says: no call lost or doubled, every decision counted", {
    timeout: 120_000,
  }, async () => {
    const options = { width: 6, agents: 3, runsPerAgent: 2, approvers: 2 };
    const result = await driveLoad({
      ...options,
      urls: [server.url],
      agentToken: accounts.agent.token,
      approverHeaders: accounts.approver.headers,
      thinkMs: 5,
    });
    expect(checkAgainstScripts(result, options)).toEqual([]);
    expect(result.runs).toHaveLength(options.agents * options.runsPerAgent);
    // Exactly one decision per run: two approvers never both decide one.
    expect(result.decisions).toBe(result.runs.length);
    const counted = [...result.latencies.values()].reduce((sum, samples) => sum + samples.length, 0);
    expect(counted).toBe(result.requests);
    expect(result.latencies.get("POST /api/agent/runs")).toHaveLength(result.runs.length);
  });
});
