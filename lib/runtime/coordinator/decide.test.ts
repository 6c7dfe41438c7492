import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "@/lib/runtime/coordinator/decision";
import {
  DecisionRefusedError,
  NotAuditableError,
  NotWaitingError,
  RunNotFoundError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "@/lib/runtime/coordinator/decision-errors";
import type { RunStore } from "@/lib/runtime/run/run-store";
import type { PendingTurn } from "@/lib/runtime/run/run-types";
import { UnreadableStateError } from "@/lib/runtime/run/suspended-state";
import { InvalidScenarioError } from "@/lib/runtime/scenario/parse-scenario";
import type { ScenarioInput } from "@/lib/runtime/scenario/scenario-schema";
import { createMemoryRunHost } from "@/lib/runtime/testing/memory-run-host";
import { deployTurn } from "@/lib/runtime/testing/scenario-fixtures";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "@/lib/runtime/testing/scenario-harness";
import { expectOneOfManyApprovalsToExecute } from "./approval-race.contract";

let harness: MemoryHarness;
beforeAll(async () => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());
// Fault counters are shared by the whole file: never let one test's leftovers reach the next.
afterEach(() => {
  harness.faults.arm("approvals", 0);
  harness.faults.arm("steps", 0);
});

const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };
const OTHER_DIGEST = "0".repeat(64);

/** A gated write (write_file) followed by a retained read; then `finish`. */
const writeTurn = (name: string, path = "out.txt"): ScenarioInput => ({
  name,
  workspace: { "seed.txt": "seed" },
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { id: "w1", name: "write_file", arguments: { path, content: "written" } },
          { id: "r1", name: "read_file", arguments: { path: "seed.txt" } },
        ],
      },
      finish,
    ],
  },
});

/** A READ tool that still asks for approval. */
const peekTool = {
  name: "peek",
  description: "Look at something, with permission",
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  approval: "always" as const,
  result: { seen: true },
};

/** Starts a run and lets it reach its first barrier; returns the pending turn the report shows. */
async function startWaiting(input: ScenarioInput): Promise<{ runId: string; pending: PendingTurn }> {
  const { runId, settled } = await harness.host.startRun(buildScenario(input));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const report = await harness.host.getReport(runId);
  if (!report?.pending) throw new Error(`run ${runId} has no pending turn`);
  return { runId, pending: report.pending };
}

async function runRow(runId: string) {
  return harness.store.inspect(runId);
}

/** The stored state, as text, to compare byte for byte. */
async function storedStateText(runId: string): Promise<string | null> {
  const state = harness.store.inspect(runId).state;
  return state === null ? null : JSON.stringify(state);
}

const approvalRows = (runId: string) => harness.store.listApprovals(runId);

const workspace = async (runId: string) => harness.host.toolContext(runId).workspace.snapshot();

async function eventsOf(runId: string, type: string) {
  return (await harness.events(runId)).filter((event) => event.type === type);
}

/** How many times the call at `batchIndex` of step 0 was started. */
async function startsOf(runId: string, batchIndex: number): Promise<number> {
  const events = await harness.events(runId);
  return events.filter(
    (event) =>
      event.type === "call_started" &&
      event.payload.stepIndex === 0 &&
      event.payload.batchIndex === batchIndex,
  ).length;
}

/** Awaits a refusal and checks its class and code; fails the test if the promise resolves. */
async function refusal<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
  code: string,
): Promise<E> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected ${code}, but it resolved ${JSON.stringify(outcome)}`);
  expect(outcome.error).toBeInstanceOf(type);
  expect(outcome.error).toMatchObject({ code });
  return outcome.error as E;
}

/** The run waits exactly as before: same status, same pending turn, no claim held. */
async function expectStillWaiting(runId: string, pending: PendingTurn) {
  const row = await runRow(runId);
  expect(row).toMatchObject({ status: "WAITING_FOR_APPROVAL", claimToken: null, leaseExpiresAt: null });
  expect((await harness.host.getReport(runId))?.pending).toEqual(pending);
}

/**
 * A store whose claim wins a row whose pending turn differs from the one read
 * before the claim, as if another decision moved the run on in between.
 */
function withTurnChangedDuringClaim(repository: RunStore): RunStore {
  return {
    ...repository,
    // The run changed after it was read, so the claim cannot also record the decision.
    claimAndRecordDecision: async () => false,
    async claimWaitingRun(id, token, leaseMs, purpose) {
      const claimed = await repository.claimWaitingRun(id, token, leaseMs, purpose);
      if (!claimed) return null;
      const state = structuredClone(claimed.state) as { pending: { calls: Array<{ arguments: string }> } };
      const [barrier] = state.pending.calls;
      if (barrier) barrier.arguments = JSON.stringify({ path: "elsewhere.txt", content: "changed" });
      return { ...claimed, state };
    },
  };
}

const approve = (pending: PendingTurn | null | undefined, actor = "alice"): Decision => ({
  approve: true,
  turnDigest: pending?.turnDigest,
  actor,
});

describe("the coordinator (in memory)", () => {
  describe("gate 1: turn binding", () => {
    it("refuses a digest that is not the pending turn's, leaves the run waiting, and accepts the right one after", async () => {
      const { runId, pending } = await startWaiting(writeTurn("stale digest"));
      const before = await storedStateText(runId);

      const error = await refusal(
        harness.host.decide(runId, { approve: true, turnDigest: OTHER_DIGEST, actor: "alice" }),
        StaleApprovalTurnError,
        "stale_turn",
      );
      expect(error.pending).toEqual(pending);
      expect(error).toMatchObject({ expected: pending.turnDigest, received: OTHER_DIGEST, runId });
      await expectStillWaiting(runId, pending);
      expect(await storedStateText(runId)).toBe(before);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed" });
      expect(await approvalRows(runId)).toEqual([]);
      expect(await eventsOf(runId, "approval_decided")).toEqual([]);

      expect(await harness.host.decide(runId, approve(pending))).toEqual({
        outcome: "executed",
        status: "COMPLETED",
      });
      expect(await startsOf(runId, 0)).toBe(1);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed", "out.txt": "written" });
      expect(await approvalRows(runId)).toMatchObject([
        { turnDigest: pending.turnDigest, approve: true, actor: "alice" },
      ]);
    });

    it("refuses the digest of an earlier turn once the run waits at the next barrier", async () => {
      const { runId, pending: first } = await startWaiting({
        name: "earlier turn's digest",
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { id: "w1", name: "write_file", arguments: { path: "x", content: "1" } },
                { id: "w2", name: "write_file", arguments: { path: "y", content: "2" } },
              ],
            },
            finish,
          ],
        },
      });
      expect(await harness.host.decide(runId, approve(first))).toEqual({
        outcome: "executed",
        status: "WAITING_FOR_APPROVAL",
      });
      const second = (await harness.host.getReport(runId))?.pending;
      if (!second) throw new Error("the run should wait at the second barrier");
      expect(second.turnDigest).not.toBe(first.turnDigest);

      // Replaying the first decision (same digest) now names a turn that is no longer pending.
      const error = await refusal(
        harness.host.decide(runId, approve(first)),
        StaleApprovalTurnError,
        "stale_turn",
      );
      expect(error.pending).toEqual(second);
      await expectStillWaiting(runId, second);
      expect(await startsOf(runId, 1)).toBe(0);
      expect(await workspace(runId)).toEqual({ x: "1" });
      expect(await approvalRows(runId)).toHaveLength(1);
    });

    it.each([
      ["an approval", "null", true, null],
      ["an approval", "undefined", true, undefined],
      ["a denial", "null", false, null],
      ["a denial", "undefined", false, undefined],
    ] as const)("refuses %s with a %s digest as stale_turn", async (_kind, _label, approveIt, turnDigest) => {
      const { runId, pending } = await startWaiting(writeTurn(`missing digest ${approveIt} ${turnDigest}`));
      const error = await refusal(
        harness.host.decide(runId, { approve: approveIt, turnDigest, actor: "alice", reason: "because" }),
        StaleApprovalTurnError,
        "stale_turn",
      );
      expect(error.pending).toEqual(pending);
      expect(error.received).toBeNull();
      await expectStillWaiting(runId, pending);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await approvalRows(runId)).toEqual([]);
      expect(await eventsOf(runId, "approval_decided")).toEqual([]);
      expect(await eventsOf(runId, "calls_invalidated")).toEqual([]);
    });

    it("refuses a digest that cannot match before claiming, so wrong digests never crowd out the right one", async () => {
      const { runId, pending } = await startWaiting(writeTurn("wrong digests claim nothing"));
      let claims = 0;
      const host = harness.hostWith((repository) => ({
        ...repository,
        async claimWaitingRun(id, token, leaseMs, purpose) {
          claims += 1;
          return repository.claimWaitingRun(id, token, leaseMs, purpose);
        },
        async claimAndRecordDecision(...args) {
          claims += 1;
          return repository.claimAndRecordDecision(...args);
        },
      }));
      const wrong = Array.from({ length: 8 }, (_, index) =>
        host.decide(runId, {
          approve: index % 2 === 0,
          turnDigest: `${index}`.repeat(64),
          actor: "mallory",
        }),
      );
      const right = host.decide(runId, approve(pending));
      const [rightOutcome, ...wrongOutcomes] = await Promise.allSettled([right, ...wrong]);
      expect(rightOutcome).toEqual({
        status: "fulfilled",
        value: { outcome: "executed", status: "COMPLETED" },
      });
      // On a server the attempts really run at once: one that reads the run after the right decision
      // took it is refused as not_waiting instead. Either way it is refused without claiming anything.
      for (const outcome of wrongOutcomes) {
        expect(outcome.status).toBe("rejected");
        const reason = (outcome as PromiseRejectedResult).reason as { code: string; pending: unknown };
        if (reason.code === "stale_turn") expect(reason.pending).toEqual(pending);
        else expect(reason.code).toBe("not_waiting");
      }
      expect(claims).toBe(1);
      expect(await approvalRows(runId)).toMatchObject([{ approve: true, actor: "alice" }]);
    });

    it("still checks the digest against the claimed row: a turn that changed after it was read is refused", async () => {
      const { runId, pending } = await startWaiting(writeTurn("turn changed during the claim"));
      const host = harness.hostWith(withTurnChangedDuringClaim);
      await refusal(host.decide(runId, approve(pending)), StaleApprovalTurnError, "stale_turn");
      expect((await runRow(runId)).status).toBe("WAITING_FOR_APPROVAL");
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await approvalRows(runId)).toEqual([]);
    });

    it("refuses a denial with a wrong digest: nothing is denied", async () => {
      const { runId, pending } = await startWaiting(writeTurn("stale denial"));
      await refusal(
        harness.host.decide(runId, { approve: false, turnDigest: OTHER_DIGEST, actor: "alice" }),
        StaleApprovalTurnError,
        "stale_turn",
      );
      await expectStillWaiting(runId, pending);
      const report = await harness.host.getReport(runId);
      expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual(["pending", "pending"]);
      expect(await approvalRows(runId)).toEqual([]);
    });
  });

  describe("separation of duties", () => {
    it("refuses the starter's own approval when the run's policy requires another approver; a denial or another person goes through", async () => {
      const starter = { id: "user-starter", name: "Sam" };
      const scenario = buildScenario({
        ...writeTurn("two people"),
        policy: { requireDistinctApprover: true },
      });
      const started = await harness.host.startRun(scenario, starter);
      expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
      const pending = (await harness.host.getReport(started.runId))?.pending;
      if (!pending) throw new Error("the run should wait");

      const refused = await refusal(
        harness.host.decide(started.runId, { ...approve(pending, starter.name), actorId: starter.id }),
        SelfApprovalError,
        "forbidden",
      );
      expect(refused.pending).toEqual(pending);
      expect(refused.message).toMatch(/requires someone else to approve/);
      await expectStillWaiting(started.runId, pending);
      expect(await approvalRows(started.runId)).toEqual([]);

      expect(
        await harness.host.decide(started.runId, { ...approve(pending, "Ada"), actorId: "user-other" }),
      ).toEqual({ outcome: "executed", status: "COMPLETED" });
      expect(await approvalRows(started.runId)).toMatchObject([{ actor: "Ada", actorId: "user-other" }]);

      const second = await harness.host.startRun(scenario, starter);
      await second.settled;
      const secondPending = (await harness.host.getReport(second.runId))?.pending;
      expect(
        await harness.host.decide(second.runId, {
          approve: false,
          turnDigest: secondPending?.turnDigest,
          actor: starter.name,
          actorId: starter.id,
          reason: "not needed",
        }),
      ).toMatchObject({ outcome: "denied" });
    });
  });

  describe("separation of duties and a scenario's own approval overrides", () => {
    const ungated = (name: string, policy?: { requireDistinctApprover: boolean }): ScenarioInput => ({
      ...writeTurn(name),
      approvals: { write_file: "never", delete_file: "never", read_file: "never" },
      ...(policy ? { policy } : {}),
    });

    it("refuses a scenario that removes a default gate while this host requires a distinct approver, naming each field", async () => {
      let created = 0;
      const host = createMemoryRunHost({
        requireDistinctApprover: true,
        wrapStore: (store) => ({
          ...store,
          createRun(run) {
            created += 1;
            return store.createRun(run);
          },
        }),
      });
      const error = await refusal(
        host.startRun(buildScenario(ungated("no gates")), { id: "user-starter", name: "Sam" }),
        InvalidScenarioError,
        "invalid_scenario",
      );
      expect(error.issues.map((issue) => issue.path)).toEqual([
        "approvals.write_file",
        "approvals.delete_file",
      ]);
      expect(error.issues[0]?.message).toMatch(
        /cannot be "never": write_file needs approval by default, and this server requires a distinct approver for every run \(PLAYGROUND_REQUIRE_DISTINCT_APPROVER=1\)/,
      );
      expect(created).toBe(0);

      // Raising a gate, or overriding a tool that needs none, is still the scenario's to say.
      const raised = await host.startRun(
        buildScenario({
          ...writeTurn("more gates"),
          approvals: { read_file: "always", write_file: "always" },
        }),
      );
      expect(await raised.settled).toBe("WAITING_FOR_APPROVAL");
    });

    it("refuses it when the scenario's own policy asks for a distinct approver, and allows it when nothing does", async () => {
      const error = await refusal(
        harness.host.startRun(buildScenario(ungated("own policy", { requireDistinctApprover: true }))),
        InvalidScenarioError,
        "invalid_scenario",
      );
      expect(error.issues[0]).toMatchObject({
        path: "approvals.write_file",
        message: expect.stringMatching(/the scenario's policy\.requireDistinctApprover is on/),
      });
      const ungatedRun = await harness.host.startRun(buildScenario(ungated("no separation")));
      expect(await ungatedRun.settled).toBe("COMPLETED");
    });
  });

  describe("runs that cannot be decided", () => {
    it("answers not_found for an unknown run id", async () => {
      const error = await refusal(
        harness.host.decide(crypto.randomUUID(), {
          approve: true,
          turnDigest: OTHER_DIGEST,
          actor: "alice",
        }),
        RunNotFoundError,
        "not_found",
      );
      expect(error.pending).toBeNull();
    });

    it("answers not_waiting to a second decision on a run the first one finished", async () => {
      const { runId, pending } = await startWaiting(writeTurn("decided twice"));
      expect(await harness.host.decide(runId, approve(pending))).toEqual({
        outcome: "executed",
        status: "COMPLETED",
      });
      for (const decision of [approve(pending, "bob"), { ...approve(pending, "bob"), approve: false }]) {
        const error = await refusal(harness.host.decide(runId, decision), NotWaitingError, "not_waiting");
        expect(error.pending).toBeNull();
        expect(error.message).toBe(`Run ${runId} has ended (COMPLETED): it is not waiting for a decision.`);
      }
      expect(await startsOf(runId, 0)).toBe(1);
      expect(await approvalRows(runId)).toHaveLength(1);
      expect(await eventsOf(runId, "approval_decided")).toHaveLength(1);
      expect((await runRow(runId)).status).toBe("COMPLETED");
    });

    it("answers not_waiting while the run is RUNNING", async () => {
      const { runId, settled } = await harness.host.startRun(
        buildScenario({
          name: "decide while running",
          tools: [{ ...peekTool, name: "slow_peek", approval: "never", delayMs: 400 }],
          model: { kind: "scripted", turns: [{ calls: [{ name: "slow_peek", arguments: {} }] }, finish] },
        }),
      );
      const error = await refusal(
        harness.host.decide(runId, { approve: true, turnDigest: OTHER_DIGEST, actor: "alice" }),
        NotWaitingError,
        "not_waiting",
      );
      expect(error.message).toBe(`Run ${runId} is not waiting for a decision (it is RUNNING).`);
      expect(await settled).toBe("COMPLETED");
      expect(await approvalRows(runId)).toEqual([]);
    });

    it("answers not_waiting, re-signalling the pending turn, when the claim is lost", async () => {
      const { runId, pending } = await startWaiting(writeTurn("claim lost"));
      const host = harness.hostWith((repository) => ({
        ...repository,
        claimAndRecordDecision: async () => false,
        claimWaitingRun: async () => null,
      }));
      const error = await refusal(host.decide(runId, approve(pending)), NotWaitingError, "not_waiting");
      expect(error.pending).toEqual(pending);
      await expectStillWaiting(runId, pending);
      expect(await approvalRows(runId)).toEqual([]);
    });
  });

  describe("unreadable suspended state", () => {
    it("refuses before claiming: the row is left exactly as it was", async () => {
      const { runId } = await startWaiting(writeTurn("corrupt before claim"));
      harness.store.overwriteState(runId, { garbage: true });
      const rowBefore = await runRow(runId);
      const stateBefore = await storedStateText(runId);
      const eventsBefore = await harness.events(runId);

      const error = await refusal(
        harness.host.decide(runId, { approve: true, turnDigest: OTHER_DIGEST, actor: "alice" }),
        UnreadableStateError,
        "unreadable_state",
      );
      expect(error.runId).toBe(runId);
      const rowAfter = await runRow(runId);
      expect(rowAfter).toEqual(rowBefore);
      expect(rowAfter).toMatchObject({
        status: "WAITING_FOR_APPROVAL",
        claimToken: null,
        state: { garbage: true },
      });
      expect(await storedStateText(runId)).toBe(stateBefore);
      expect(await harness.events(runId)).toEqual(eventsBefore);
      expect(await approvalRows(runId)).toEqual([]);
      expect(await startsOf(runId, 0)).toBe(0);
    });

    it("settles the run FAILED when the claimed row cannot be decoded, keeping its stored state", async () => {
      const { runId, pending } = await startWaiting(writeTurn("corrupt after claim"));
      const stateBefore = await storedStateText(runId);
      const host = harness.hostWith((repository) => ({
        ...repository,
        // Damaged after it was read: the claim cannot also record the decision.
        claimAndRecordDecision: async () => false,
        async claimWaitingRun(id, token, leaseMs, purpose) {
          const claimed = await repository.claimWaitingRun(id, token, leaseMs, purpose);
          return claimed && { ...claimed, state: { garbage: true } };
        },
      }));

      await refusal(host.decide(runId, approve(pending)), UnreadableStateError, "unreadable_state");
      const row = await runRow(runId);
      expect(row).toMatchObject({ status: "FAILED", claimToken: null, leaseExpiresAt: null });
      expect(row.error?.code).toBe("unreadable_state");
      expect(row.state).not.toBeNull();
      expect(await storedStateText(runId)).toBe(stateBefore);
      expect((await harness.host.getReport(runId))?.error?.code).toBe("unreadable_state");
      expect(await eventsOf(runId, "run_finished")).toMatchObject([
        { payload: { status: "FAILED", error: { code: "unreadable_state" } } },
      ]);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await approvalRows(runId)).toEqual([]);
    });
  });

  describe("gate 2: fail-closed audit", () => {
    it("refuses an unaudited approval of a write turn, hands the run back, and a retry succeeds", async () => {
      const { runId, pending } = await startWaiting(writeTurn("audit outage on a write"));
      const stateBefore = await storedStateText(runId);
      harness.faults.arm("approvals", 1);

      const error = await refusal(
        harness.host.decide(runId, approve(pending)),
        NotAuditableError,
        "not_auditable",
      );
      expect(harness.faults.armed().approvals).toBe(0);
      expect(error.pending).toEqual(pending);
      await expectStillWaiting(runId, pending);
      expect(await storedStateText(runId)).toBe(stateBefore);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed" });
      expect(await approvalRows(runId)).toEqual([]);
      expect(await eventsOf(runId, "approval_decided")).toEqual([]);

      expect(await harness.host.decide(runId, approve(pending, "bob"))).toEqual({
        outcome: "executed",
        status: "COMPLETED",
      });
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed", "out.txt": "written" });
      expect(await approvalRows(runId)).toMatchObject([{ approve: true, actor: "bob" }]);
    });

    it("refuses an unaudited approval of a gated read when a retained call writes", async () => {
      const { runId, pending } = await startWaiting({
        name: "audit outage, read barrier, write retained",
        tools: [peekTool],
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "peek", arguments: {} },
                { name: "memory_set", arguments: { key: "k", value: 1 } },
              ],
            },
            finish,
          ],
        },
      });
      expect(pending.calls.map((call) => call.name)).toEqual(["peek", "memory_set"]);
      harness.faults.arm("approvals", 1);
      await refusal(harness.host.decide(runId, approve(pending)), NotAuditableError, "not_auditable");
      await expectStillWaiting(runId, pending);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await startsOf(runId, 1)).toBe(0);
    });

    it("lets an unaudited approval of a read-only turn proceed", async () => {
      const { runId, pending } = await startWaiting({
        name: "audit outage on a read-only turn",
        tools: [peekTool],
        workspace: { "a.txt": "A" },
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "peek", arguments: {} },
                { name: "read_file", arguments: { path: "a.txt" } },
                { name: "list_files", arguments: {} },
              ],
            },
            finish,
          ],
        },
      });
      expect(pending.calls.map((call) => call.name)).toEqual(["peek", "read_file", "list_files"]);
      harness.faults.arm("approvals", 1);

      expect(await harness.host.decide(runId, approve(pending))).toEqual({
        outcome: "executed",
        status: "COMPLETED",
      });
      expect(harness.faults.armed().approvals).toBe(0);
      expect(await approvalRows(runId)).toEqual([]);
      expect(await eventsOf(runId, "approval_decided")).toMatchObject([
        { payload: { audited: false, approve: true, outcome: "executed", turnDigest: pending.turnDigest } },
      ]);
      const report = await harness.host.getReport(runId);
      expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual(["ok", "ok", "ok"]);
      expect(report?.steps[0]?.calls[0]?.result).toEqual({ seen: true });
    });

    it("lets an unaudited denial of a write turn proceed", async () => {
      const { runId, pending } = await startWaiting(writeTurn("audit outage on a denial"));
      harness.faults.arm("approvals", 1);

      expect(
        await harness.host.decide(runId, {
          approve: false,
          turnDigest: pending.turnDigest,
          actor: "alice",
          reason: "not today",
        }),
      ).toEqual({ outcome: "denied", status: "COMPLETED" });
      expect(harness.faults.armed().approvals).toBe(0);
      expect(await approvalRows(runId)).toEqual([]);
      expect(await eventsOf(runId, "approval_decided")).toMatchObject([
        { payload: { audited: false, approve: false, outcome: "denied", reason: "not today" } },
      ]);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed" });
      const report = await harness.host.getReport(runId);
      expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual(["denied", "invalidated"]);
      expect(report?.steps[0]?.calls[0]?.error?.message).toContain("not today");
    });
  });

  describe("a refusal whose release fails", () => {
    it.each([
      ["a digest that went stale during the claim", false],
      ["an unaudited write approval", true],
    ] as const)("settles the run FAILED, never leaving it RUNNING (%s)", async (_case, approvalFault) => {
      const { runId, pending } = await startWaiting(writeTurn("release fails"));
      if (approvalFault) harness.faults.arm("approvals", 1);
      const host = harness.hostWith((repository) => ({
        ...(approvalFault ? repository : withTurnChangedDuringClaim(repository)),
        releaseRun: async () => false,
      }));
      const decision: Decision = approve(pending);

      const error = await refusal(host.decide(runId, decision), DecisionRefusedError, "not_waiting");
      expect(error.pending).toBeNull();
      const row = await runRow(runId);
      expect(row).toMatchObject({ status: "FAILED", claimToken: null, leaseExpiresAt: null });
      expect(row.error?.code).toBe("release_failed");
      expect(row.state).not.toBeNull();
      expect(await eventsOf(runId, "run_finished")).toMatchObject([{ payload: { status: "FAILED" } }]);
      expect(await startsOf(runId, 0)).toBe(0);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed" });
      expect(await eventsOf(runId, "approval_decided")).toEqual([]);
    });
  });

  describe("an outcome that cannot be stored stops the worker (recovery settles the call)", () => {
    it("stops the worker when an approved write ran but its outcome could not be stored: nothing after it runs, the run does not end", async () => {
      const { runId, pending } = await startWaiting(writeTurn("step audit outage"));
      harness.faults.arm("steps", 1);

      expect(await harness.host.decide(runId, approve(pending))).toEqual({
        outcome: "executed",
        status: "RUNNING",
      });
      expect(harness.faults.armed().steps).toBe(0);
      // Left as a crash leaves it: RUNNING under the lapsing claim, the write's call still running.
      const row = await runRow(runId);
      expect(row).toMatchObject({ status: "RUNNING", error: null });
      expect(row.claimToken).not.toBeNull();
      // The write did happen; only its outcome is missing, so nothing after it may run.
      expect(await startsOf(runId, 0)).toBe(1);
      expect(await workspace(runId)).toEqual({ "seed.txt": "seed", "out.txt": "written" });
      expect(await startsOf(runId, 1)).toBe(0);
      expect(await eventsOf(runId, "call_settled")).toEqual([]);
      expect(await eventsOf(runId, "run_finished")).toEqual([]);
    });

    it("stops the worker when an approved read's outcome could not be stored: the run never goes on without it", async () => {
      const { runId, pending } = await startWaiting({
        name: "step audit outage on a read",
        tools: [peekTool],
        model: { kind: "scripted", turns: [{ calls: [{ name: "peek", arguments: {} }] }, finish] },
      });
      harness.faults.arm("steps", 1);
      expect(await harness.host.decide(runId, approve(pending))).toEqual({
        outcome: "executed",
        status: "RUNNING",
      });
      expect(harness.faults.armed().steps).toBe(0);
      expect(await eventsOf(runId, "run_finished")).toEqual([]);
      expect((await runRow(runId)).status).toBe("RUNNING");
    });
  });

  it("claims and records a decision in one write when the run is as it was read: the barrier starts in it", async () => {
    const { runId, pending } = await startWaiting(writeTurn("one write"));
    const writes: string[] = [];
    const host = harness.hostWith((repository) => ({
      ...repository,
      async claimAndRecordDecision(...args) {
        writes.push("claimAndRecordDecision");
        return repository.claimAndRecordDecision(...args);
      },
      async claimWaitingRun(...args) {
        writes.push("claimWaitingRun");
        return repository.claimWaitingRun(...args);
      },
      async recordApproval(...args) {
        writes.push("recordApproval");
        return repository.recordApproval(...args);
      },
    }));
    const waitedAt = (await harness.events(runId)).length;
    expect(await host.decide(runId, approve(pending))).toEqual({
      outcome: "executed",
      status: "COMPLETED",
    });
    expect(writes).toEqual(["claimAndRecordDecision"]);
    const after = (await harness.events(runId)).slice(waitedAt, waitedAt + 4);
    expect(after.map((event) => event.type)).toEqual([
      "run_claimed",
      "approval_decided",
      "run_resumed",
      "call_started",
    ]);
    expect(await approvalRows(runId)).toMatchObject([{ approve: true, actor: "alice" }]);
  });

  it("concurrent approvals in one process never queue: only one of them even tries to claim", async () => {
    const { runId, pending } = await startWaiting(deployTurn("one claim", 20));
    let claims = 0;
    const host = harness.hostWith((repository) => ({
      ...repository,
      async claimWaitingRun(id, token, leaseMs, purpose) {
        claims += 1;
        return repository.claimWaitingRun(id, token, leaseMs, purpose);
      },
      async claimAndRecordDecision(...args) {
        claims += 1;
        return repository.claimAndRecordDecision(...args);
      },
    }));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) => host.decide(runId, approve(pending, `actor-${index}`))),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results.filter((entry) => entry.status === "rejected")) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: "not_waiting" });
    }
    expect(claims).toBe(1);
  });

  it("32 concurrent approvals of one turn: exactly one executes it, once", async () => {
    const { runId, pending } = await startWaiting(deployTurn("race", 50));
    await expectOneOfManyApprovalsToExecute(harness.host, runId, pending);
    expect(await approvalRows(runId)).toHaveLength(1);
  });

  describe("failures after the claim", () => {
    it("settles the run FAILED, never RUNNING, when recording and announcing the decision fails unexpectedly", async () => {
      const { runId, pending } = await startWaiting(writeTurn("announce fails"));
      const host = harness.hostWith((repository) => ({
        ...repository,
        claimAndRecordDecision: async () => false,
        recordApproval: async () => {
          throw new Error("connection reset");
        },
      }));
      await expect(host.decide(runId, approve(pending))).rejects.toThrow("connection reset");
      const row = await runRow(runId);
      expect(row).toMatchObject({ status: "FAILED", claimToken: null, error: { code: "internal_error" } });
      expect(await workspace(runId)).not.toHaveProperty("out.txt");
    });

    it("refuses a digest that is not a string as stale_turn and leaves the run waiting", async () => {
      const { runId, pending } = await startWaiting(writeTurn("numeric digest"));
      await refusal(
        harness.host.decide(runId, { approve: true, turnDigest: 42 as unknown as string, actor: "alice" }),
        StaleApprovalTurnError,
        "stale_turn",
      );
      await expectStillWaiting(runId, pending);
    });
  });
});
