/**
 * The contract every `RunStore` keeps, as one suite each implementation runs
 * (the in-memory store, PGlite, the Postgres server). A store that passes it
 * can back the run loop and the coordinator; the rule tests rely on nothing
 * else. Import it from a test file and call it inside the file's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEventOf } from "../events/run-events";
import { LostClaimError, UnsettledCallsError } from "./run-errors";
import type { ApprovalRecord, NewRun, NewStep, RunStore } from "./run-store";
import { SUSPENDED_STATE_VERSION, type SuspendedState } from "./suspended-state";

export interface StoreUnderTest {
  store: RunStore;
  close(): Promise<void>;
}

const isLostClaim = (error: unknown) => LostClaimError.isInstance(error);

const LIMITS = { maxParallelToolCalls: 8, maxBatchPayloadBytes: 262_144, maxRepairAttempts: 2 };

function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    id: crypto.randomUUID(),
    name: "contract",
    scenario: { name: "contract", anything: ["opaque", 1] },
    limits: LIMITS,
    claimToken: "token-1",
    leaseMs: 60_000,
    startedBy: { id: "user-1", name: "Alice" },
    files: [{ path: "a.txt", content: "A" }],
    ...overrides,
  };
}

const call = (batchIndex: number, name = "read_file") => ({
  batchIndex,
  id: `c${batchIndex}`,
  name,
  arguments: '{"path":"a.txt"}',
  parsedArguments: { path: "a.txt" },
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  isGated: name !== "read_file",
  problem: null,
});

const METRICS = {
  originalSize: 2,
  cap: 8,
  waveCount: 1,
  waveBoundaries: [[0, 0]] as Array<[number, number]>,
  completedWaves: 0,
  approvalBarriers: 1,
  retainedCount: 0,
  invalidatedCount: 0,
  repairReason: null,
};

const STEP: NewStep = {
  index: 0,
  completion: {
    latencyMs: 12,
    usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
    preamble: { version: 1, text: "the rules" },
    synthesized: false,
  },
  text: "two calls",
  plan: {
    kind: "execute",
    segments: [
      { kind: "wave", batchIndexes: [0] },
      { kind: "barrier", batchIndex: 1 },
    ],
    problems: [],
  },
  metrics: METRICS,
  calls: [
    { call: call(0), status: "pending", error: null },
    { call: call(1, "write_file"), status: "pending", error: null },
  ],
};

const TURN = {
  turnDigest: "a".repeat(64),
  calls: [{ id: "c1", name: "write_file", arguments: "{}", batchIndex: 1 }],
};

const STATE: SuspendedState = {
  schemaVersion: SUSPENDED_STATE_VERSION,
  stepIndex: 0,
  calls: [call(0), call(1, "write_file")],
  plan: STEP.plan,
  nextSegment: 1,
  completedWaves: 1,
  outcomes: { "0": { status: "ok", result: { content: "A" }, error: null } },
  transcript: [],
  pending: TURN,
};

const DECISION_ID = "0b7e7c1e-5d6a-4c8e-9f2a-1d3b5c7e9f00";

/** An audit row for the barrier of {@link TURN}, approved unless `overrides` say otherwise. */
function gateRow(runId: string, overrides: Partial<ApprovalRecord>): ApprovalRecord {
  return {
    runId,
    turnDigest: TURN.turnDigest,
    approve: true,
    actor: "alice",
    actorId: null,
    reason: null,
    decisionId: "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
    kind: "decision",
    grantedBy: null,
    scope: "gate",
    batchIndex: 1,
    callId: "c1",
    toolName: "write_file",
    arguments: "{}",
    argumentsDigest: "d".repeat(64),
    editedArguments: null,
    editedDigest: null,
    ...overrides,
  };
}

function decidedEvent({
  approve,
  actor,
}: {
  approve: boolean;
  actor: string;
}): RunEventOf<"approval_decided"> {
  return {
    type: "approval_decided",
    payload: {
      stepIndex: 0,
      turnDigest: TURN.turnDigest,
      approve,
      actor,
      actorId: null,
      reason: null,
      audited: true,
      outcome: approve ? "executed" : "denied",
      decisionId: null,
      scope: "gate",
      gates: [1],
      editedArguments: null,
      allowTool: null,
    },
  };
}

const released = { type: "run_released" as const, payload: { stepIndex: 0, ...TURN, refusal: "stale_turn" } };

export function describeRunStoreContract(label: string, open: () => Promise<StoreUnderTest>) {
  describe(`RunStore contract: ${label}`, () => {
    // One store for the suite, as one database serves many runs: every test works on runs of its own.
    let opened: StoreUnderTest | undefined;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened?.close());
    async function withStore(test: (store: RunStore) => Promise<void>) {
      if (!opened) throw new Error("the store under test did not open");
      await test(opened.store);
    }

    /** A run stored, planned and suspended at its barrier, claim released. */
    async function waitingRun(store: RunStore) {
      const run = newRun();
      await store.createRun(run);
      await store.recordStep(run.id, run.claimToken, STEP, 1);
      await store.suspendRun(run.id, run.claimToken, STATE);
      return run;
    }

    it("creates a claimed RUNNING run and announces it as event 1", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        expect(await store.getRun(run.id)).toEqual({
          id: run.id,
          status: "RUNNING",
          scenario: run.scenario,
          limits: LIMITS,
          modelCalls: 0,
          state: null,
          startedById: "user-1",
          leaseExpired: false,
          allowedTools: {},
          version: expect.any(String),
        });
        const events = await store.readEvents(run.id, 0);
        expect(events).toEqual([
          {
            seq: 1,
            type: "run_started",
            payload: {
              name: "contract",
              limits: LIMITS,
              startedBy: { id: "user-1", name: "Alice" },
              mcpServers: [],
            },
            at: expect.any(String),
          },
        ]);
        expect(Number.isNaN(Date.parse(events[0]?.at ?? ""))).toBe(false);
      }));

    it("reads events a page at a time: at most `limit`, after `afterSeq`, in seq order", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        for (let stepIndex = 0; stepIndex < 4; stepIndex += 1) {
          await store.appendEvent(run.id, run.claimToken, {
            type: "wave_started",
            payload: { stepIndex, batchIndexes: [0] },
          });
        }
        const seqs = async (afterSeq: number, limit?: number) =>
          (await store.readEvents(run.id, afterSeq, limit)).map((event) => event.seq);
        expect(await seqs(0, 2)).toEqual([1, 2]);
        expect(await seqs(2, 2)).toEqual([3, 4]);
        expect(await seqs(4, 2)).toEqual([5]);
        expect(await seqs(5, 2)).toEqual([]);
        expect(await seqs(1)).toEqual([2, 3, 4, 5]);
      }));

    it("knows nothing of an unknown run and refuses to append to it", () =>
      withStore(async (store) => {
        const unknown = crypto.randomUUID();
        expect(await store.getRun(unknown)).toBeNull();
        expect(await store.readEvents(unknown, 0)).toEqual([]);
        expect(await store.listApprovals(unknown)).toEqual([]);
        await expect(
          store.appendEvent(unknown, "any", {
            type: "wave_started",
            payload: { stepIndex: 0, batchIndexes: [0] },
          }),
        ).rejects.toThrow();
      }));

    it("numbers events 1, 2, 3… per run with no gap, and stamps call starts and settles with them", () =>
      withStore(async (store) => {
        const run = newRun();
        const other = newRun();
        await store.createRun(run);
        await store.createRun(other);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        const started = await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
        const settled = await store.settleCalls(run.id, run.claimToken, 0, [
          { batchIndex: 0, outcome: { status: "ok", result: { n: 1 }, error: null } },
        ]);
        expect([started, settled]).toEqual([{ seqs: [4] }, [5]]);
        const events = await store.readEvents(run.id, 0);
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(events.map((event) => event.type)).toEqual([
          "run_started",
          "step_planned",
          "wave_started",
          "call_started",
          "call_settled",
        ]);
        expect((await store.readEvents(run.id, 3)).map((event) => event.seq)).toEqual([4, 5]);
        expect((await store.readEvents(other.id, 0)).map((event) => event.seq)).toEqual([1]);
        expect(events[4]).toMatchObject({
          payload: { stepIndex: 0, batchIndex: 0, status: "ok", result: { n: 1 }, error: null },
        });
      }));

    it("starts a wave's calls together and settles calls together, one seq each, in order", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        expect(await store.startCalls(run.id, run.claimToken, 0, [1, 0], { wave: true })).toEqual({
          seqs: [4, 5],
        });
        expect(
          await store.settleCalls(run.id, run.claimToken, 0, [
            { batchIndex: 0, outcome: { status: "ok", result: { a: 1 }, error: null } },
            { batchIndex: 1, outcome: { status: "error", result: null, error: { code: "x", message: "y" } } },
          ]),
        ).toEqual([6, 7]);
        const events = await store.readEvents(run.id, 2);
        expect(events.map((event) => [event.seq, event.type, event.payload])).toEqual([
          [3, "wave_started", { stepIndex: 0, batchIndexes: [1, 0] }],
          [4, "call_started", { stepIndex: 0, batchIndex: 1 }],
          [5, "call_started", { stepIndex: 0, batchIndex: 0 }],
          [6, "call_settled", { stepIndex: 0, batchIndex: 0, status: "ok", result: { a: 1 }, error: null }],
          [
            7,
            "call_settled",
            {
              stepIndex: 0,
              batchIndex: 1,
              status: "error",
              result: null,
              error: { code: "x", message: "y" },
            },
          ],
        ]);
      }));

    it("starts a lone call (an approved barrier) in the same write as the events that lead up to it", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        const resumed = {
          type: "run_resumed" as const,
          payload: { stepIndex: 0, action: "approve" as const },
        };
        expect(
          await store.startCalls(run.id, run.claimToken, 0, [1], { wave: false, first: [resumed] }),
        ).toEqual({
          seqs: [4],
        });
        const events = await store.readEvents(run.id, 2);
        expect(events.map((event) => [event.seq, event.type])).toEqual([
          [3, "run_resumed"],
          [4, "call_started"],
        ]);
      }));

    it("starts no wave while a cancel is pending, says which, and leaves it to be taken", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        const before = await store.readEvents(run.id, 0);
        expect(await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true })).toEqual({
          cancelPending: "turn",
        });
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        // A single call that is not a wave (an approved barrier) starts regardless.
        expect(await store.startCalls(run.id, run.claimToken, 0, [1], { wave: false })).toEqual({
          seqs: [3],
        });
        expect(await store.finishStep(run.id, run.claimToken, 0, METRICS)).toEqual({
          cancelPending: "turn",
          allowedTools: {},
        });
        expect(await store.takeCancelRequest(run.id, run.claimToken)).toBe("turn");
        expect(await store.finishStep(run.id, run.claimToken, 0, METRICS)).toEqual({
          cancelPending: null,
          allowedTools: {},
        });
      }));

    it("records a step with its calls and completion count, announced as step_planned", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 3);
        expect((await store.getRun(run.id))?.modelCalls).toBe(3);
        const [, planned] = await store.readEvents(run.id, 0);
        expect(planned).toMatchObject({
          type: "step_planned",
          payload: {
            stepIndex: 0,
            modelCalls: 3,
            text: "two calls",
            plan: STEP.plan,
            metrics: METRICS,
            calls: [
              {
                batchIndex: 0,
                id: "c0",
                name: "read_file",
                arguments: '{"path":"a.txt"}',
                status: "pending",
              },
              { batchIndex: 1, id: "c1", name: "write_file", isGated: true, status: "pending" },
            ],
          },
        });
        await store.invalidateCalls(
          run.id,
          run.claimToken,
          0,
          [
            {
              batchIndex: 1,
              outcome: { status: "invalidated", result: null, error: { code: "x", message: "y" } },
            },
          ],
          "turn_cancelled",
        );
        await store.finishStep(run.id, run.claimToken, 0, { ...METRICS, invalidatedCount: 1 });
        const [invalidated, finished] = await store.readEvents(run.id, 2);
        expect(invalidated).toMatchObject({
          type: "calls_invalidated",
          payload: { reason: "turn_cancelled", calls: [{ batchIndex: 1, status: "invalidated" }] },
        });
        expect(finished).toMatchObject({
          type: "step_finished",
          payload: { metrics: { invalidatedCount: 1 } },
        });
      }));

    it("suspends with the state and announces the pending turn; the claim is gone", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.getRun(run.id)).toMatchObject({ status: "WAITING_FOR_APPROVAL", state: STATE });
        const last = (await store.readEvents(run.id, 0)).at(-1);
        expect(last).toMatchObject({ type: "awaiting_approval", payload: { stepIndex: 0, ...TURN } });
        // The old holder is fenced out of every claimed write.
        await expect(store.finishRun(run.id, run.claimToken, "COMPLETED", null)).rejects.toSatisfy(
          isLostClaim,
        );
      }));

    it("fences writes by the claim token: a stale holder changes nothing and appends nothing", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        const before = await store.readEvents(run.id, 0);
        const stale = "not-the-token";
        const writes: Array<() => Promise<unknown>> = [
          () =>
            store.appendEvent(run.id, stale, {
              type: "wave_started",
              payload: { stepIndex: 0, batchIndexes: [0] },
            }),
          () => store.recordStep(run.id, stale, { ...STEP, index: 1 }, 2),
          () => store.startCalls(run.id, stale, 0, [0], { wave: true }),
          () => store.startCalls(run.id, stale, 0, [1], { wave: false }),
          () =>
            store.settleCalls(run.id, stale, 0, [
              { batchIndex: 0, outcome: { status: "ok", result: null, error: null } },
            ]),
          () =>
            store.invalidateCalls(
              run.id,
              stale,
              0,
              [{ batchIndex: 1, outcome: { status: "invalidated", result: null, error: null } }],
              "x",
            ),
          () => store.finishStep(run.id, stale, 0, METRICS),
        ];
        for (const write of writes) await expect(write()).rejects.toSatisfy(isLostClaim);
        await expect(store.suspendRun(run.id, "not-the-token", STATE)).rejects.toSatisfy(isLostClaim);
        await expect(store.finishRun(run.id, "not-the-token", "COMPLETED", null)).rejects.toSatisfy(
          isLostClaim,
        );
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        expect(await store.getRun(run.id)).toMatchObject({ status: "RUNNING", modelCalls: 1 });
        expect(await store.renewLease(run.id, stale, 60_000)).toBe(false);
      }));

    it("renews a lease only for its holder, and lets any instance take over a run whose lease ran out", () =>
      withStore(async (store) => {
        const live = newRun({ leaseMs: 60_000 });
        const dead = newRun({ leaseMs: 1 });
        await store.createRun(live);
        await store.createRun(dead);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await store.getRun(live.id)).toMatchObject({ leaseExpired: false });
        expect(await store.getRun(dead.id)).toMatchObject({ leaseExpired: true });
        expect(await store.renewLease(live.id, live.claimToken, 60_000)).toBe(true);

        // Two sweeps at once: the expired run goes to exactly one of them, the live one to none.
        const [a, b] = await Promise.all([
          store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: dead.id }),
          store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: dead.id }),
        ]);
        const taken = [...a, ...b];
        expect(taken).toHaveLength(1);
        expect(taken[0]?.run).toMatchObject({ id: dead.id, status: "RUNNING", leaseExpired: false });
        expect(taken[0]?.claimToken).not.toBe(dead.claimToken);
        expect(await store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: live.id })).toEqual([]);

        // The old holder is fenced out; the new one writes.
        await expect(store.startCalls(dead.id, dead.claimToken, 0, [0], { wave: true })).rejects.toSatisfy(
          isLostClaim,
        );
        expect(await store.renewLease(dead.id, dead.claimToken, 60_000)).toBe(false);
        const newToken = taken[0]?.claimToken ?? "";
        await store.finishRun(dead.id, newToken, "CANCELLED", null);
        expect(await store.getRun(dead.id)).toMatchObject({ status: "CANCELLED", leaseExpired: false });
        expect(await store.claimExpiredRuns({ leaseMs: 1, limit: 10, runId: dead.id })).toEqual([]);
      }));

    it("lets exactly one of two claims take a waiting run; a release needs that claim's token", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const [first, second] = await Promise.all([
          store.claimWaitingRun(run.id, "claim-a", 60_000, "decision"),
          store.claimWaitingRun(run.id, "claim-b", 60_000, "decision"),
        ]);
        expect([first, second].filter(Boolean)).toHaveLength(1);
        expect(first ?? second).toMatchObject({ id: run.id, status: "RUNNING", state: STATE });
        // The claim is announced in the same write, with the claimed turn.
        const claimed = (await store.readEvents(run.id, 0)).filter((event) => event.type === "run_claimed");
        expect(claimed).toMatchObject([
          { payload: { stepIndex: 0, turnDigest: TURN.turnDigest, purpose: "decision" } },
        ]);
        const winner = first ? "claim-a" : "claim-b";
        const loser = first ? "claim-b" : "claim-a";
        expect(await store.releaseRun(run.id, loser, STATE, released)).toBe(false);
        expect(await store.releaseRun(run.id, winner, STATE, released)).toBe(true);
        expect(await store.getRun(run.id)).toMatchObject({ status: "WAITING_FOR_APPROVAL", state: STATE });
        expect((await store.readEvents(run.id, 0)).at(-1)).toMatchObject({
          type: "run_released",
          payload: { refusal: "stale_turn", turnDigest: TURN.turnDigest },
        });
        // Released, it can be claimed again; a run that is not waiting cannot.
        expect(await store.claimWaitingRun(run.id, "claim-c", 60_000, "cancel")).not.toBeNull();
        expect(await store.claimWaitingRun(run.id, "claim-d", 60_000, "decision")).toBeNull();
        const events = await store.readEvents(run.id, 0);
        expect(events.at(-1)).toMatchObject({ type: "run_claimed", payload: { purpose: "cancel" } });
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      }));

    it("finishes a run for its holder: final status, error, state cleared, run_finished", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.finishRun(run.id, run.claimToken, "FAILED", { code: "boom", message: "it broke" });
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED", state: null });
        expect((await store.readEvents(run.id, 0)).at(-1)).toMatchObject({
          type: "run_finished",
          payload: { status: "FAILED", error: { code: "boom", message: "it broke" } },
        });
      }));

    it("refuses to end a run while a call it started has no stored outcome, writing nothing", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
        const before = await store.readEvents(run.id, 0);
        for (const status of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
          const refusal = await store.finishRun(run.id, run.claimToken, status, null).then(
            () => null,
            (error: unknown) => error,
          );
          expect(UnsettledCallsError.isInstance(refusal)).toBe(true);
          expect((refusal as UnsettledCallsError).calls).toEqual(["0:0"]);
        }
        expect(await store.getRun(run.id)).toMatchObject({ status: "RUNNING" });
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        // A stale holder is told it lost the claim, whatever is running.
        await expect(store.finishRun(run.id, "stale", "COMPLETED", null)).rejects.toSatisfy(isLostClaim);
        // Once the outcome is stored the run may end.
        await store.settleCalls(run.id, run.claimToken, 0, [
          { batchIndex: 0, outcome: { status: "ok", result: { content: "A" }, error: null } },
        ]);
        await store.finishRun(run.id, run.claimToken, "COMPLETED", null);
        expect(await store.getRun(run.id)).toMatchObject({ status: "COMPLETED" });
      }));

    it("force-fails a run with a call still running by settling that call interrupted in the same write", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
        expect(await store.forceFail(run.id, { code: "unreadable_state", message: "m" })).toBe(true);
        const events = await store.readEvents(run.id, 0);
        expect(events.slice(-2)).toMatchObject([
          {
            type: "call_settled",
            payload: { stepIndex: 0, batchIndex: 0, status: "error", error: { code: "interrupted" } },
          },
          { type: "run_finished", payload: { status: "FAILED", error: { code: "unreadable_state" } } },
        ]);
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED" });
      }));

    it("force-fails a running or waiting run whoever holds it, keeping the state; never a finished one", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.forceFail(run.id, { code: "release_failed", message: "m" })).toBe(true);
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED", state: STATE });
        expect(await store.forceFail(run.id, { code: "again", message: "m" })).toBe(false);
        const finished = (await store.readEvents(run.id, 0)).filter((event) => event.type === "run_finished");
        expect(finished).toHaveLength(1);
      }));

    it("keeps a cancel request of a running run until it is taken, never weakening run to turn", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        const take = () => store.takeCancelRequest(run.id, run.claimToken);
        expect(await take()).toBeNull();
        expect(await store.requestCancel(run.id, "run")).toBe(true);
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        // Only the holder takes it.
        await expect(store.takeCancelRequest(run.id, "not-the-token")).rejects.toSatisfy(isLostClaim);
        expect(await take()).toBe("run");
        expect(await take()).toBeNull();
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        expect(await take()).toBe("turn");
        await store.finishRun(run.id, run.claimToken, "COMPLETED", null);
        expect(await store.requestCancel(run.id, "run")).toBe(false);
      }));

    it("keeps every approval row in order, with who decided what and when, each decision announced in the same write", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const claimed = await store.claimWaitingRun(run.id, "holder", 60_000, "decision");
        expect(claimed).not.toBeNull();
        const announce = (approve: boolean, actor: string) => ({
          claimToken: "holder",
          event: decidedEvent({ approve, actor }),
        });
        expect(
          await store.recordApproval(
            [gateRow(run.id, { approve: false, actor: "bob", reason: "no" })],
            announce(false, "bob"),
          ),
        ).toBe(true);
        // One decision on two gates, the first edited: a row per gate, one decision id.
        const edited = { editedArguments: '{"path":"b.txt"}', editedDigest: "e".repeat(64) };
        expect(
          await store.recordApproval(
            [
              gateRow(run.id, {
                actor: "alice",
                actorId: "u-1",
                decisionId: DECISION_ID,
                scope: "turn",
                ...edited,
              }),
              gateRow(run.id, {
                actor: "alice",
                actorId: "u-1",
                decisionId: DECISION_ID,
                scope: "turn",
                batchIndex: 2,
                callId: "c2",
              }),
            ],
            announce(true, "alice"),
          ),
        ).toBe(true);
        const decided = (await store.readEvents(run.id, 0)).filter(
          (event) => event.type === "approval_decided",
        );
        expect(decided.map((event) => event.payload)).toMatchObject([{ actor: "bob" }, { actor: "alice" }]);
        // A holder that lost its claim neither audits nor announces.
        await expect(
          store.recordApproval([gateRow(run.id, { actor: "mallory" })], {
            ...announce(true, "m"),
            claimToken: "stale",
          }),
        ).rejects.toSatisfy(isLostClaim);
        const { runId: _, ...stored } = gateRow(run.id, {});
        expect(await store.listApprovals(run.id)).toEqual([
          { ...stored, approve: false, actor: "bob", reason: "no", decidedAt: expect.any(String) },
          {
            ...stored,
            actor: "alice",
            actorId: "u-1",
            decisionId: DECISION_ID,
            scope: "turn",
            ...edited,
            decidedAt: expect.any(String),
          },
          {
            ...stored,
            actor: "alice",
            actorId: "u-1",
            decisionId: DECISION_ID,
            scope: "turn",
            batchIndex: 2,
            callId: "c2",
            decidedAt: expect.any(String),
          },
        ]);
      }));

    it("claims a decision and records it in one write while the run is as it was read, and writes nothing once it changed", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const read = await store.getRun(run.id);
        if (!read) throw new Error("no run");
        const before = (await store.readEvents(run.id, 0)).length;
        const decision = {
          records: [gateRow(run.id, { actor: "alice" })],
          event: decidedEvent({ approve: true, actor: "alice" }),
          startBarrier: {
            resumed: { type: "run_resumed" as const, payload: { stepIndex: 0, action: "approve" as const } },
            batchIndex: 1,
          },
        };

        // Changed since it was read (claimed and released: the same turn, but not the same row).
        expect(await store.claimWaitingRun(run.id, "other", 60_000, "cancel")).not.toBeNull();
        expect(await store.claimAndRecordDecision(run.id, "late", 60_000, read.version, decision)).toBe(
          false,
        );
        const released = { type: "run_released" as const, payload: { stepIndex: 0, ...TURN, refusal: "x" } };
        expect(await store.releaseRun(run.id, "other", STATE, released)).toBe(true);
        const reread = await store.getRun(run.id);
        expect(reread?.version).not.toBe(read.version);
        const afterRelease = (await store.readEvents(run.id, 0)).length;
        expect(await store.claimAndRecordDecision(run.id, "stale", 60_000, read.version, decision)).toBe(
          false,
        );
        expect(await store.readEvents(run.id, 0)).toHaveLength(afterRelease);
        expect(await store.listApprovals(run.id)).toEqual([]);
        expect((await store.getRun(run.id))?.status).toBe("WAITING_FOR_APPROVAL");

        // An audit that refuses the decision's rows (here, a kind its table does not know) leaves nothing written.
        const refused = {
          ...decision,
          records: [gateRow(run.id, { kind: "bogus" as ApprovalRecord["kind"] })],
        };
        expect(
          await store.claimAndRecordDecision(run.id, "holder", 60_000, reread?.version ?? "", refused),
        ).toBe(false);
        expect(await store.readEvents(run.id, 0)).toHaveLength(afterRelease);
        expect((await store.getRun(run.id))?.version).toBe(reread?.version);

        // As read: claimed, audited, announced and started, in that order, in one write.
        expect(
          await store.claimAndRecordDecision(run.id, "holder", 60_000, reread?.version ?? "", decision),
        ).toBe(true);
        const events = (await store.readEvents(run.id, afterRelease)).map((event) => [
          event.type,
          event.payload,
        ]);
        expect(events).toEqual([
          ["run_claimed", { stepIndex: 0, turnDigest: TURN.turnDigest, purpose: "decision" }],
          ["approval_decided", expect.objectContaining({ actor: "alice" })],
          ["run_resumed", { stepIndex: 0, action: "approve" }],
          ["call_started", { stepIndex: 0, batchIndex: 1 }],
        ]);
        expect(before).toBeLessThan(afterRelease);
        expect(await store.listApprovals(run.id)).toMatchObject([{ actor: "alice", kind: "decision" }]);
        expect((await store.getRun(run.id))?.status).toBe("RUNNING");
        // The claim is held: another claim loses, and the holder settles the started call.
        expect(await store.claimWaitingRun(run.id, "another", 60_000, "decision")).toBeNull();
        expect(
          await store.settleCalls(run.id, "holder", 0, [
            { batchIndex: 1, outcome: { status: "ok", result: null, error: null } },
          ]),
        ).toHaveLength(1);
        // A run that is not waiting is not claimed again.
        const now = await store.getRun(run.id);
        expect(
          await store.claimAndRecordDecision(run.id, "again", 60_000, now?.version ?? "", decision),
        ).toBe(false);
      }));

    it("starts an approved barrier in the audit's write, and neither when the claim is lost", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.claimWaitingRun(run.id, "holder", 60_000, "decision")).not.toBeNull();
        const before = (await store.readEvents(run.id, 0)).length;
        const approval = [gateRow(run.id, { actor: "alice" })];
        const announce = (claimToken: string) => ({
          claimToken,
          event: decidedEvent({ approve: true, actor: "alice" }),
          startBarrier: {
            resumed: { type: "run_resumed" as const, payload: { stepIndex: 0, action: "approve" as const } },
            batchIndex: 1,
          },
        });
        await expect(store.recordApproval(approval, announce("stale"))).rejects.toSatisfy(isLostClaim);
        expect(await store.recordApproval(approval, announce("holder"))).toBe(true);
        const events = (await store.readEvents(run.id, before)).map((event) => [
          event.seq - before,
          event.type,
          event.payload,
        ]);
        expect(events).toEqual([
          [1, "approval_decided", expect.objectContaining({ actor: "alice" })],
          [2, "run_resumed", { stepIndex: 0, action: "approve" }],
          [3, "call_started", { stepIndex: 0, batchIndex: 1 }],
        ]);
        expect(await store.listApprovals(run.id)).toHaveLength(1);
        // The started call settles like any other.
        expect(
          await store.settleCalls(run.id, "holder", 0, [
            { batchIndex: 1, outcome: { status: "ok", result: null, error: null } },
          ]),
        ).toEqual([before + 4]);
      }));

    it("grants a tool with an approval, audits each call it lets through as it starts, and revokes it", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.claimWaitingRun(run.id, "holder", 60_000, "decision")).not.toBeNull();
        const granting = decidedEvent({ approve: true, actor: "alice" });
        granting.payload.decisionId = DECISION_ID;
        granting.payload.allowTool = "write_file";
        expect(
          await store.recordApproval([gateRow(run.id, { decisionId: DECISION_ID })], {
            claimToken: "holder",
            event: granting,
          }),
        ).toBe(true);
        const grant = { decisionId: DECISION_ID, actor: "alice", actorId: null };
        expect((await store.getRun(run.id))?.allowedTools).toEqual({ write_file: grant });
        // A call the grant lets through is audited in the write that starts it, and only if it starts.
        const automatic = gateRow(run.id, {
          kind: "automatic",
          grantedBy: DECISION_ID,
          decisionId: "7a1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
        });
        await expect(
          store.startCalls(run.id, "stale", 0, [1], { wave: true, approvals: [automatic] }),
        ).rejects.toSatisfy(isLostClaim);
        await store.startCalls(run.id, "holder", 0, [1], { wave: true, approvals: [automatic] });
        const rows = await store.listApprovals(run.id);
        expect(rows.map((row) => [row.kind, row.grantedBy])).toEqual([
          ["decision", null],
          ["automatic", DECISION_ID],
        ]);
        expect((await store.finishStep(run.id, "holder", 0, METRICS)).allowedTools).toEqual({
          write_file: grant,
        });
        // Revoked whoever holds the run; the next step's finish says it is gone.
        expect(await store.revokeToolAllowance(run.id, "write_file", { actor: "bob", actorId: "u-2" })).toBe(
          true,
        );
        expect(await store.revokeToolAllowance(run.id, "write_file", { actor: "bob", actorId: "u-2" })).toBe(
          false,
        );
        expect((await store.finishStep(run.id, "holder", 0, METRICS)).allowedTools).toEqual({});
        const revoked = (await store.readEvents(run.id, 0)).filter(
          (event) => event.type === "tool_allowance_revoked",
        );
        expect(revoked.map((event) => event.payload)).toEqual([
          { toolName: "write_file", actor: "bob", actorId: "u-2" },
        ]);
      }));

    it("keeps a wait's deadline: warns once in its last fifth, and lists it once it has passed", () =>
      withStore(async (store) => {
        const suspendedWith = async (expiresAt: string) => {
          const run = newRun();
          await store.createRun(run);
          await store.recordStep(run.id, run.claimToken, STEP, 1);
          await store.suspendRun(run.id, run.claimToken, { ...STATE, pending: { ...TURN, expiresAt } });
          return run.id;
        };
        const past = await suspendedWith(new Date(Date.now() - 1_000).toISOString());
        const later = await suspendedWith(new Date(Date.now() + 3_600_000).toISOString());
        const warnings = async (runId: string) =>
          (await store.readEvents(runId, 0)).filter((event) => event.type === "approval_expiring");
        expect(await store.announceExpiringWaits(1_000)).toBeGreaterThanOrEqual(1);
        await store.announceExpiringWaits(1_000);
        expect((await warnings(past)).map((event) => event.payload)).toEqual([
          { stepIndex: 0, turnDigest: TURN.turnDigest, expiresAt: expect.any(String) },
        ]);
        expect(await warnings(later)).toEqual([]);
        const expired = await store.listExpiredWaits(1_000);
        expect(expired).toContain(past);
        expect(expired).not.toContain(later);
        // A run taken up by a decision is not waiting: its deadline no longer counts.
        await store.claimWaitingRun(past, "holder", 60_000, "decision");
        expect(await store.listExpiredWaits(1_000)).not.toContain(past);
      }));

    it("stores copies: changing what was passed in or read out changes nothing stored", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const read = await store.getRun(run.id);
        if (!read) throw new Error("the run was not stored");
        (read.state as SuspendedState).pending.turnDigest = "changed";
        const [first] = await store.readEvents(run.id, 0);
        if (first?.type !== "run_started") throw new Error("the first event is not run_started");
        first.payload.name = "changed";
        expect((await store.getRun(run.id))?.state).toEqual(STATE);
        expect((await store.readEvents(run.id, 0))[0]?.payload).toMatchObject({ name: "contract" });
      }));
  });
}
