/**
 * What the store contract's suites share (`run-event-log.contract.ts`,
 * `run-claims.contract.ts`, `approval-store.contract.ts`): the runs, steps,
 * turns and audit rows they store, and the suite over one opened store.
 */
import { afterAll, beforeAll, describe } from "vitest";
import type { RunEventOf } from "../events/run-events";
import type { ApprovalRecord } from "./approval-records";
import { LostClaimError } from "./run-errors";
import type { NewRun, NewStep } from "./run-records";
import type { RunStore } from "./run-store";
import { SUSPENDED_STATE_VERSION, type SuspendedState } from "./suspended-state";

export interface StoreUnderTest {
  store: RunStore;
  close(): Promise<void>;
}

export const isLostClaim = (error: unknown) => LostClaimError.isInstance(error);

export const LIMITS = { maxParallelToolCalls: 8, maxBatchPayloadBytes: 262_144, maxRepairAttempts: 2 };

export function newRun(overrides: Partial<NewRun> = {}): NewRun {
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

export const call = (batchIndex: number, name = "read_file") => ({
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

export const METRICS = {
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

export const STEP: NewStep = {
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

export const TURN = {
  turnDigest: "a".repeat(64),
  calls: [{ id: "c1", name: "write_file", arguments: "{}", batchIndex: 1 }],
};

export const STATE: SuspendedState = {
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

export const DECISION_ID = "0b7e7c1e-5d6a-4c8e-9f2a-1d3b5c7e9f00";

/** An audit row for the barrier of {@link TURN}, approved unless `overrides` say otherwise. */
export function gateRow(runId: string, overrides: Partial<ApprovalRecord>): ApprovalRecord {
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

export function decidedEvent({
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

export const released = {
  type: "run_released" as const,
  payload: { stepIndex: 0, ...TURN, refusal: "stale_turn" },
};

/**
 * One suite over one opened store, as one database serves many runs: every
 * test works on runs of its own. `withStore` hands each test the store.
 */
export function describeStoreSuite(
  title: string,
  open: () => Promise<StoreUnderTest>,
  tests: (withStore: (test: (store: RunStore) => Promise<void>) => Promise<void>) => void,
) {
  describe(title, () => {
    let opened: StoreUnderTest | undefined;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened?.close());
    tests(async (test) => {
      if (!opened) throw new Error("the store under test did not open");
      await test(opened.store);
    });
  });
}

/** A run stored, planned and suspended at its barrier, claim released. */
export async function waitingRun(store: RunStore) {
  const run = newRun();
  await store.createRun(run);
  await store.recordStep(run.id, run.claimToken, STEP, 1);
  await store.suspendRun(run.id, run.claimToken, STATE);
  return run;
}
