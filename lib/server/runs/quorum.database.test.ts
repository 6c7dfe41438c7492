import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readApprovals } from "@/db/repositories/approval-audit";
import { testDriverName } from "@/db/testing/test-database";
import type { Decision, PendingTurn } from "@/lib/runtime";
import { deployTurn } from "@/lib/runtime/testing/scenario-fixtures";
import { publishPolicy } from "@/lib/server/policies/policies";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

// The quorum's rules are tested on the in-memory store (lib/runtime/coordinator/quorum.test.ts).
// Here: approvals counted at once, on two instances, against one row of a real database.

let harness: ScenarioHarness;
beforeAll(async () => {
  harness = await openScenarioHarness();
  await publishPolicy(
    harness.handle.db,
    { id: "user-admin", name: "Admin" },
    {
      document: `rules:
  - name: deploys-need-two
    when: call.name == "deploy"
    effect: require
    quorum: 2
`,
      mode: "live",
    },
  );
});
afterAll(() => harness?.close());

const approve = (pending: PendingTurn, index: number): Decision => ({
  approve: true,
  turnDigest: pending.turnDigest,
  actor: `approver ${index}`,
  actorId: `user-${index}`,
  decider: { role: "approver", email: `approver-${index}@example.com`, userId: `user-${index}` },
});

describe(`a quorum of two on ${testDriverName}`, () => {
  it("approvals racing on two instances: one is counted, one completes the quorum and runs the barrier once, the rest find it taken", async () => {
    const other = harness.serviceWith();
    const { runId, settled } = await harness.service.startRun(buildScenario(deployTurn("quorum race", 20)));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await harness.service.getReport(runId))?.pending;
    if (!pending) throw new Error("the run should wait");
    expect(pending.quorum).toBe(2);

    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        (index % 2 === 0 ? harness.service : other).decide(runId, approve(pending, index)),
      ),
    );
    const outcomes = results.flatMap((result) =>
      result.status === "fulfilled" ? [result.value.outcome] : [],
    );
    expect(outcomes.sort()).toEqual(["counted", "executed"]);
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toMatchObject({ code: "not_waiting" });
    }
    const events = await harness.events(runId);
    expect(events.filter((event) => event.type === "approval_counted")).toHaveLength(1);
    expect(events.filter((event) => event.type === "approval_decided")).toHaveLength(1);
    const barrier = pending.calls[0];
    expect(
      events.filter(
        (event) =>
          event.type === "call_started" &&
          event.payload.stepIndex === 0 &&
          event.payload.batchIndex === barrier?.batchIndex,
      ),
    ).toHaveLength(1);
    const audit = await readApprovals(harness.handle.db, runId);
    expect(audit.map((row) => row.kind)).toEqual(["partial", "decision"]);
    expect(new Set(audit.map((row) => row.actorId)).size).toBe(2);
    expect((await harness.service.getReport(runId))?.status).toBe("COMPLETED");
  });

  it("an approval counted without waiting for the run answers that the run still waits, and it does", async () => {
    const { runId, settled } = await harness.service.startRun(buildScenario(deployTurn("quorum answer")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await harness.service.getReport(runId))?.pending;
    if (!pending) throw new Error("the run should wait");
    expect(await harness.service.startDecision(runId, approve(pending, 1))).toEqual({
      outcome: "counted",
      status: "WAITING_FOR_APPROVAL",
    });
    expect((await harness.service.getReport(runId))?.status).toBe("WAITING_FOR_APPROVAL");
  });

  it("counts an approval durably: the state, the audit row and the event, and a second instance sees it", async () => {
    const other = harness.serviceWith();
    const { runId, settled } = await harness.service.startRun(buildScenario(deployTurn("quorum durable")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await harness.service.getReport(runId))?.pending;
    if (!pending) throw new Error("the run should wait");
    expect(await harness.service.decide(runId, approve(pending, 1))).toEqual({
      outcome: "counted",
      status: "WAITING_FOR_APPROVAL",
    });
    expect((await other.getReport(runId))?.pending).toMatchObject({
      quorum: 2,
      approvals: [{ actor: "approver 1", actorId: "user-1" }],
    });
    await expect(other.decide(runId, approve(pending, 1))).rejects.toMatchObject({
      code: "already_approved",
    });
    expect(await other.decide(runId, approve(pending, 2))).toMatchObject({ outcome: "executed" });
  });
});
