import { beforeAll, describe, expect, it } from "vitest";
import { readApprovals } from "@/db/repositories/approval-audit";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

let accounts: Record<Role, TestAccount>;
let routes: {
  runs: typeof import("../runs/route");
  run: typeof import("../runs/[id]/route");
  decision: typeof import("../runs/[id]/decision/route");
  policies: typeof import("./route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  routes = {
    runs: await import("../runs/route"),
    run: await import("../runs/[id]/route"),
    decision: await import("../runs/[id]/decision/route"),
    policies: await import("./route"),
  };
});

const { request: as, post } = setup;

const ADMINS_DECIDE_WRITES = `rules:
  - name: writes-by-admins
    when: call.name == "write_file"
    effect: require
    approvers: { role: admin }
`;

describe("a decision on a gate whose policy rule names who may decide", () => {
  it("answers 403 not_rule_approver naming the rule to anyone else, audits nothing, and takes the named role's", async () => {
    const published = await routes.policies.POST(
      post("admin", "http://test/api/policies", { document: ADMINS_DECIDE_WRITES, mode: "live" }),
    );
    expect(await published.json()).toMatchObject({ version: 1, mode: "live" });
    const created = await routes.runs.POST(
      post("operator", "http://test/api/runs", gatedWriteScenario("admins")),
    );
    const { runId } = await created.json();
    const params = { params: Promise.resolve({ id: runId as string }) };
    const readRun = async () => (await routes.run.GET(as("viewer", "http://test"), params)).json();
    await expect.poll(async () => (await readRun()).status, { timeout: 20_000 }).toBe("WAITING_FOR_APPROVAL");
    const { pending } = await readRun();
    const url = `http://test/api/runs/${runId}/decision`;

    const refused = await routes.decision.POST(
      post("approver", url, { approve: true, turnDigest: pending.turnDigest }),
      params,
    );
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error).toMatchObject({
      code: "not_rule_approver",
      details: { rule: "writes-by-admins", policyVersion: 1 },
    });
    expect(body.error.message).toContain(
      'Policy rule "writes-by-admins" (version 1) lets only an admin decide',
    );
    expect(body.pending).toEqual(pending);
    expect(await readApprovals(setup.handle.db, runId)).toEqual([]);
    expect((await readRun()).status).toBe("WAITING_FOR_APPROVAL");

    const taken = await routes.decision.POST(
      post("admin", url, { approve: true, turnDigest: pending.turnDigest }),
      params,
    );
    expect(taken.status).toBe(200);
    await expect.poll(async () => (await readRun()).status, { timeout: 20_000 }).toBe("COMPLETED");
    expect(await readApprovals(setup.handle.db, runId)).toEqual([
      expect.objectContaining({ kind: "decision", approve: true, actorId: accounts.admin.userId }),
    ]);
  });
});
