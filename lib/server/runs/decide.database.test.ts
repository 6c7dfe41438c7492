import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriverName } from "@/db/testing/test-database";
import type { PendingTurn, ScenarioInput } from "@/lib/runtime";
import { expectOneOfManyApprovalsToExecute } from "@/lib/runtime/coordinator/approval-race.contract";
import { deployTurn, twoGatedWrites } from "@/lib/runtime/testing/scenario-fixtures";
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

describe(`a decision checked against the row a page read, on ${testDriverName}`, () => {
  it("the database refuses its one write once the run has changed (row version), and the fresh read decides", async () => {
    const { runId, pending } = await startWaiting(twoGatedWrites("two barriers"));
    const seen = { reads: 0, fencedWrites: [] as boolean[] };
    // Another instance: its own memory of the rows it read.
    const instance = harness.serviceWith((store) => ({
      ...store,
      async getRun(id) {
        seen.reads += 1;
        return store.getRun(id);
      },
      async claimAndRecordDecision(...args) {
        const recorded = await store.claimAndRecordDecision(...args);
        seen.fencedWrites.push(recorded);
        return recorded;
      },
    }));
    await instance.getRun(runId); // its page: the first barrier
    expect(await harness.service.decide(runId, approve(pending, "bob"))).toMatchObject({
      status: "WAITING_FOR_APPROVAL",
    });
    seen.reads = 0;
    // The first barrier's digest passes every check on the remembered row; the row has moved on.
    await expect(instance.decide(runId, approve(pending, "alice"))).rejects.toMatchObject({
      code: "stale_turn",
    });
    expect(seen).toEqual({ reads: 1, fencedWrites: [false] });
    const writes = (await harness.events(runId)).filter(
      (event) => event.type === "call_started" && event.payload.stepIndex === 0,
    );
    expect(writes).toHaveLength(1);

    const second = (await harness.service.getReport(runId))?.pending;
    if (!second) throw new Error("the run waits at nothing");
    await instance.getRun(runId); // its page again: the second barrier
    seen.reads = 0;
    seen.fencedWrites.length = 0;
    expect(await instance.decide(runId, approve(second, "alice"))).toEqual({
      outcome: "executed",
      status: "COMPLETED",
    });
    expect(seen).toEqual({ reads: 0, fencedWrites: [true] });
  });
});
