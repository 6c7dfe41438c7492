import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriverName } from "@/db/testing/test-database";
import type { PendingTurn, ScenarioInput } from "@/lib/runtime";
import { expectOneOfManyApprovalsToExecute } from "@/lib/runtime/coordinator/approval-race.contract";
import { deployTurn } from "@/lib/runtime/testing/scenario-fixtures";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

// The coordinator's rules are tested on the in-memory store (lib/runtime/coordinator/decide.test.ts).
// Here: what only a database shows, decisions that really run at once against one row.

let harness: ScenarioHarness;
beforeAll(async () => {
  harness = await openScenarioHarness();
});
afterAll(() => harness?.close());

async function startWaiting(input: ScenarioInput): Promise<{ runId: string; pending: PendingTurn }> {
  const { runId, settled } = await harness.service.startRun(buildScenario(input));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const report = await harness.service.getReport(runId);
  if (!report?.pending) throw new Error(`run ${runId} has no pending turn`);
  return { runId, pending: report.pending };
}

const approve = (pending: PendingTurn, actor: string) => ({
  approve: true,
  turnDigest: pending.turnDigest,
  actor,
});

describe(`concurrent decisions on ${testDriverName}`, () => {
  it.runIf(process.env.TEST_DATABASE_URL)(
    "32 concurrent approvals of one turn: exactly one executes it, once",
    async () => {
      const { runId, pending } = await startWaiting(deployTurn("race", 50));
      await expectOneOfManyApprovalsToExecute(harness.service, runId, pending);
    },
  );

  it("a claim on a run another decision holds is refused, whatever the driver", async () => {
    const { runId, pending } = await startWaiting(deployTurn("sequential", 0));
    const first = harness.service.decide(runId, approve(pending, "alice"));
    const second = harness.service.decide(runId, approve(pending, "bob"));
    const [a, b] = await Promise.allSettled([first, second]);
    expect([a.status, b.status].sort()).toEqual(["fulfilled", "rejected"]);
  });
});
