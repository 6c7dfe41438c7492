import { describe, expect, it } from "vitest";
import { decodeSuspendedState, UnreadableStateError } from "../run/suspended-state";
import { decodeRunEvent, RUN_EVENT_TYPES, RUN_EVENT_VERSIONS, UnreadableEventError } from "./run-events";

const RUN = "00000000-0000-4000-8000-000000000001";
const stored = (type: string, payload: unknown, version = 1) => ({
  seq: 7,
  type,
  version,
  payload,
  at: "2026-11-30T00:00:00.000Z",
});
const METRICS = {
  originalSize: 1,
  cap: 8,
  waveCount: 1,
  waveBoundaries: [[0, 0]],
  completedWaves: 0,
  approvalBarriers: 0,
  retainedCount: 0,
  invalidatedCount: 0,
  repairReason: null,
};
const plannedV1 = {
  stepIndex: 2,
  text: null,
  plan: { kind: "execute", segments: [{ kind: "wave", batchIndexes: [0] }], problems: [] },
  metrics: METRICS,
  calls: [
    {
      batchIndex: 0,
      id: "c0",
      name: "read_file",
      arguments: "{}",
      resourceClass: "pure_read",
      isGated: false,
      status: "pending",
      error: null,
    },
  ],
};

describe("the run event catalogue", () => {
  it("reads rows written before payloads had versions: step_planned v1 gets its completion count", () => {
    const event = decodeRunEvent(RUN, stored("step_planned", plannedV1));
    expect(event).toMatchObject({ seq: 7, type: "step_planned", payload: { stepIndex: 2, modelCalls: 3 } });
    // …and, through version 2, calls that no grant let through; through version 4, no fingerprints.
    expect(event.payload).toMatchObject({ calls: [{ id: "c0", allowedBy: null, toolFingerprint: null }] });
  });

  it("reads a run_started from before MCP servers as a run that uses none", () => {
    const limits = { maxParallelToolCalls: 8, maxBatchPayloadBytes: 262_144, maxRepairAttempts: 2 };
    const event = decodeRunEvent(RUN, stored("run_started", { name: "old", limits, startedBy: null }));
    expect(event.payload).toEqual({ name: "old", limits, startedBy: null, mcpServers: [], forkedFrom: null });
  });

  it("reads a run_started from before forks as a run forked from nothing, and keeps a fork's origin", () => {
    const limits = { maxParallelToolCalls: 8, maxBatchPayloadBytes: 262_144, maxRepairAttempts: 2 };
    const v2 = { name: "old", limits, startedBy: null, mcpServers: ["notes"] };
    expect(decodeRunEvent(RUN, stored("run_started", v2, 2)).payload).toMatchObject({ forkedFrom: null });
    const forkedFrom = { runId: RUN, step: 2 };
    const fork = decodeRunEvent(RUN, stored("run_started", { ...v2, forkedFrom }, 3));
    expect(fork.payload).toMatchObject({ forkedFrom });
    expect(() =>
      decodeRunEvent(RUN, stored("run_started", { ...v2, forkedFrom: { runId: RUN, step: 0 } }, 3)),
    ).toThrow(UnreadableEventError);
  });

  it("reads a pending turn from before fingerprints unchanged, and keeps a call's fingerprint and the tools shown", () => {
    const call = { id: "c0", name: "write_file", arguments: "{}", batchIndex: 0 };
    const old = decodeRunEvent(
      RUN,
      stored("awaiting_approval", { stepIndex: 0, turnDigest: "a".repeat(64), calls: [call] }),
    );
    expect(old.payload).toEqual({ stepIndex: 0, turnDigest: "a".repeat(64), calls: [call] });
    const tool = {
      name: "memory__create_entities",
      fingerprint: "b".repeat(64),
      description: "Create entities",
      inputSchema: { type: "object" },
      origin: {
        kind: "mcp",
        server: "memory",
        trust: "trusted",
        serverToolName: "create_entities",
        annotations: null,
        outputSchema: null,
        basis: "…",
      },
    };
    const withFingerprint = { ...call, name: tool.name, toolFingerprint: tool.fingerprint };
    const current = decodeRunEvent(
      RUN,
      stored("awaiting_approval", {
        stepIndex: 0,
        turnDigest: "a".repeat(64),
        calls: [withFingerprint],
        tools: [tool],
      }),
    );
    expect(current.payload).toMatchObject({ calls: [withFingerprint], tools: [tool] });
  });

  it("reads a decision from before sign-in, which had no actorId", () => {
    const event = decodeRunEvent(
      RUN,
      stored("approval_decided", {
        stepIndex: 0,
        turnDigest: "a".repeat(64),
        approve: true,
        actor: "alice",
        reason: null,
        audited: true,
        outcome: "executed",
      }),
    );
    expect(event.payload).toMatchObject({ actor: "alice", actorId: null });
  });

  it("reads a version 1 decision as one on the barrier alone, as shown, granting nothing", () => {
    const event = decodeRunEvent(
      RUN,
      stored("approval_decided", {
        stepIndex: 0,
        turnDigest: "a".repeat(64),
        approve: true,
        actor: "alice",
        actorId: "u-1",
        reason: null,
        audited: true,
        outcome: "executed",
      }),
    );
    expect(event.payload).toEqual({
      stepIndex: 0,
      turnDigest: "a".repeat(64),
      approve: true,
      actor: "alice",
      actorId: "u-1",
      reason: null,
      audited: true,
      outcome: "executed",
      decisionId: null,
      scope: "gate",
      gates: [],
      editedArguments: null,
      allowTool: null,
    });
  });

  it("reads the current version as written", () => {
    const payload = {
      ...plannedV1,
      modelCalls: 9,
      completion: { latencyMs: 30, usage: null, preamble: null, synthesized: false },
      calls: plannedV1.calls.map((call) => ({ ...call, allowedBy: null, toolFingerprint: "c".repeat(64) })),
    };
    const event = decodeRunEvent(RUN, stored("step_planned", payload, RUN_EVENT_VERSIONS.step_planned));
    expect(event.payload).toEqual(payload);
  });

  it.each([
    ["an unknown type", stored("run_exploded", {}), /unknown type "run_exploded"/],
    [
      "a version newer than this server",
      stored("call_started", { stepIndex: 0, batchIndex: 0 }, 99),
      /newer/,
    ],
    ["version 0", stored("call_started", { stepIndex: 0, batchIndex: 0 }, 0), /version 0/],
    ["a payload missing a field", stored("call_started", { stepIndex: 0 }), /call_started: batchIndex/],
    [
      "a status no call has",
      stored("call_settled", { stepIndex: 0, batchIndex: 0, status: "great", result: null, error: null }),
      /status/,
    ],
  ])("refuses %s, naming what is wrong", (_, row, message) => {
    let thrown: unknown;
    try {
      decodeRunEvent(RUN, row);
    } catch (error) {
      thrown = error;
    }
    expect(UnreadableEventError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).toContain("Event 7 of run");
  });

  it("has a version for every type", () => {
    expect(Object.keys(RUN_EVENT_VERSIONS).sort()).toEqual([...RUN_EVENT_TYPES].sort());
  });
});

describe("the suspended state's versions", () => {
  const turn = {
    turnDigest: "b".repeat(64),
    calls: [{ id: "w", name: "write_file", arguments: "{}", batchIndex: 0 }],
  };
  const v1 = {
    schemaVersion: 1,
    stepIndex: 0,
    calls: [
      {
        batchIndex: 0,
        id: "w",
        name: "write_file",
        rawArguments: "{}",
        parsedArguments: {},
        resourceClass: "write",
        effect: "IDEMPOTENT_WRITE",
        isGated: true,
        problem: null,
      },
    ],
    plan: { kind: "execute", segments: [{ kind: "barrier", batchIndex: 0 }], problems: [] },
    nextSegment: 0,
    completedWaves: 0,
    outcomes: {},
    transcript: [],
    pending: turn,
  };

  it("reads a version 1 state, whose calls named their arguments rawArguments", () => {
    const state = decodeSuspendedState(RUN, v1);
    expect(state.schemaVersion).toBe(2);
    expect(state.calls[0]).toMatchObject({ id: "w", arguments: "{}" });
    expect(state.calls[0]).not.toHaveProperty("rawArguments");
  });

  it("refuses a state of an unknown version, naming the field", () => {
    expect(() => decodeSuspendedState(RUN, { ...v1, schemaVersion: 7 })).toThrow(UnreadableStateError);
    expect(() => decodeSuspendedState(RUN, { ...v1, schemaVersion: 7 })).toThrow(/schemaVersion/);
  });
});
