import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import type { ModelCompletionRequest } from "../model/model";
import type { PendingTurn } from "../run/run-types";
import type { ScenarioInput } from "../scenario/scenario-schema";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { computeCallDigest } from "../turn-digest";
import {
  type DecisionRefusedError,
  InvalidDecisionError,
  NotAuditableError,
  StaleApprovalTurnError,
} from "./decision-errors";

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());
afterEach(() => harness.faults.arm("approvals", 0));

const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };

/** write_file (gated), a read, delete_file (gated), a read: two gates in one turn. */
const twoGates = (name: string, options: { failFirstGate?: boolean } = {}): ScenarioInput => ({
  name,
  workspace: { "old.txt": "old", "keep.txt": "keep" },
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          options.failFirstGate
            ? // A file that is not there makes the first gate fail when it runs.
              { id: "w", name: "delete_file", arguments: { path: "missing.txt" } }
            : { id: "w", name: "write_file", arguments: { path: "new.txt", content: "fresh" } },
          { id: "r1", name: "list_files", arguments: { dir: "" } },
          { id: "d", name: "delete_file", arguments: { path: "old.txt" } },
          { id: "r2", name: "read_file", arguments: { path: "keep.txt" } },
        ],
      },
      finish,
    ],
  },
});

const oneWrite = (name: string): ScenarioInput => ({
  name,
  workspace: {},
  model: {
    kind: "scripted",
    turns: [
      { calls: [{ id: "w", name: "write_file", arguments: { path: "a.txt", content: "model's" } }] },
      finish,
    ],
  },
});

async function startWaiting(input: ScenarioInput): Promise<{ runId: string; pending: PendingTurn }> {
  const { runId, settled } = await harness.host.startRun(buildScenario(input));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const pending = (await harness.host.getReport(runId))?.pending;
  if (!pending) throw new Error("no pending turn");
  return { runId, pending };
}

async function refused(promise: Promise<unknown>): Promise<DecisionRefusedError> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error as DecisionRefusedError,
  );
  if (!outcome) throw new Error("the decision was not refused");
  return outcome;
}

const workspace = (runId: string) => harness.host.toolContext(runId).workspace.snapshot();
const events = (runId: string, type: string) =>
  harness.events(runId).then((all) => all.filter((event) => event.type === type));

describe("edit, then approve", () => {
  it("runs the barrier with the edited arguments, audits both with their digests, and tells the model", async () => {
    const { runId, pending } = await startWaiting(oneWrite("edit"));
    const result = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      editedArguments: { path: "a.txt", content: "alice's" },
    });
    expect(result).toEqual({ outcome: "executed", status: "COMPLETED" });
    expect(workspace(runId)).toEqual({ "a.txt": "alice's" });
    const asked = await events(runId, "approval_decided");

    const [row] = await harness.store.listApprovals(runId);
    const shown = pending.calls[0];
    if (!shown) throw new Error("no barrier");
    const edited = '{"content":"alice\'s","path":"a.txt"}';
    expect(row).toMatchObject({
      approve: true,
      actor: "alice",
      kind: "decision",
      scope: "gate",
      batchIndex: 0,
      toolName: "write_file",
      arguments: shown.arguments,
      argumentsDigest: computeCallDigest(shown),
      editedArguments: edited,
      editedDigest: computeCallDigest({ ...shown, arguments: edited }),
    });
    expect(row?.argumentsDigest).not.toBe(row?.editedDigest);

    const report = await harness.host.getReport(runId);
    // The report keeps what the model sent and shows what ran.
    expect(report?.steps[0]?.calls[0]).toMatchObject({
      arguments: shown.arguments,
      editedArguments: edited,
      status: "ok",
    });
    expect(report?.decisions).toMatchObject([{ editedArguments: edited, decisionId: row?.decisionId }]);
    expect(asked).toMatchObject([{ payload: { editedArguments: edited, gates: [0], scope: "gate" } }]);
  });

  it("tells the model, with the call's outcome, that a person changed its arguments", async () => {
    const requests: ModelCompletionRequest[] = [];
    const host = createMemoryRunHost({
      wrapModel: (model) => ({
        complete: (request) => {
          requests.push(request);
          return model.complete(request);
        },
      }),
    });
    const { runId, settled } = await host.startRun(buildScenario(oneWrite("edit told")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await host.getReport(runId))?.pending;
    await host.decide(runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "alice",
      editedArguments: { path: "a.txt", content: "x" },
    });
    const transcript = requests.at(-1)?.transcript ?? [];
    // The model's own call stays as it sent it; the outcome says what ran.
    expect(transcript.find((entry) => entry.role === "assistant")).toMatchObject({
      calls: [{ arguments: pending?.calls[0]?.arguments }],
    });
    expect(transcript.find((entry) => entry.role === "tool")).toMatchObject({
      status: "ok",
      note: 'A person changed this call\'s arguments before approving it; it ran with {"content":"x","path":"a.txt"}.',
    });
  });

  it("refuses edited arguments the tool's schema refuses, naming the field, and claims nothing", async () => {
    const { runId, pending } = await startWaiting(oneWrite("bad edit"));
    const before = (await harness.events(runId)).length;
    const error = await refused(
      harness.host.decide(runId, {
        approve: true,
        turnDigest: pending.turnDigest,
        actor: "alice",
        editedArguments: { path: "a.txt" },
      }),
    );
    expect(error).toBeInstanceOf(InvalidDecisionError);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(/^editedArguments: .*content/);
    expect(error.pending).toEqual(pending);
    expect((await harness.events(runId)).length).toBe(before);
    expect(await harness.store.listApprovals(runId)).toEqual([]);
  });

  it("refuses an edit with a stale digest as stale_turn, and an edit with a denial as invalid", async () => {
    const { runId, pending } = await startWaiting(oneWrite("stale edit"));
    const stale = await refused(
      harness.host.decide(runId, {
        approve: true,
        turnDigest: "0".repeat(64),
        actor: "alice",
        editedArguments: { path: "a.txt", content: "x" },
      }),
    );
    expect(stale).toBeInstanceOf(StaleApprovalTurnError);
    const denial = await refused(
      harness.host.decide(runId, {
        approve: false,
        turnDigest: pending.turnDigest,
        actor: "alice",
        editedArguments: { path: "a.txt", content: "x" },
      }),
    );
    expect(denial).toBeInstanceOf(InvalidDecisionError);
    expect(denial.message).toMatch(/^editedArguments: /);
    expect(workspace(runId)).toEqual({});
  });

  it("executes nothing when the edited approval cannot be audited (503), and the run waits again", async () => {
    const { runId, pending } = await startWaiting(oneWrite("unaudited edit"));
    harness.faults.arm("approvals", 1);
    const error = await refused(
      harness.host.decide(runId, {
        approve: true,
        turnDigest: pending.turnDigest,
        actor: "alice",
        editedArguments: { path: "a.txt", content: "x" },
      }),
    );
    expect(error).toBeInstanceOf(NotAuditableError);
    expect(workspace(runId)).toEqual({});
    expect(harness.store.inspect(runId).status).toBe("WAITING_FOR_APPROVAL");
    expect(await events(runId, "call_started")).toEqual([]);
  });
});

describe("approve every gate of the turn", () => {
  it("lists and numbers the gates, and one decision runs them all in order with a row per gate", async () => {
    const { runId, pending } = await startWaiting(twoGates("approve all"));
    expect(pending.gates).toEqual([0, 2]);
    const result = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      scope: "turn",
    });
    expect(result).toEqual({ outcome: "executed", status: "COMPLETED" });
    expect(workspace(runId)).toEqual({ "new.txt": "fresh", "keep.txt": "keep" });
    const rows = await harness.store.listApprovals(runId);
    expect(rows.map((row) => [row.batchIndex, row.toolName, row.scope])).toEqual([
      [0, "write_file", "turn"],
      [2, "delete_file", "turn"],
    ]);
    expect(new Set(rows.map((row) => row.decisionId)).size).toBe(1);
    // It never waited at the second gate.
    expect(await events(runId, "awaiting_approval")).toHaveLength(1);
    const report = await harness.host.getReport(runId);
    expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual(["ok", "ok", "ok", "ok"]);
  });

  it("invalidates everything after a gate that fails, and the audited approvals stay", async () => {
    const { runId, pending } = await startWaiting(
      twoGates("approve all, first fails", { failFirstGate: true }),
    );
    await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      scope: "turn",
    });
    const report = await harness.host.getReport(runId);
    expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual([
      "error",
      "invalidated",
      "invalidated",
      "invalidated",
    ]);
    expect(workspace(runId)).toEqual({ "old.txt": "old", "keep.txt": "keep" });
    expect(await harness.store.listApprovals(runId)).toHaveLength(2);
  });

  it("without it, the second gate waits for its own decision", async () => {
    const { runId, pending } = await startWaiting(twoGates("one at a time"));
    const first = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
    });
    expect(first.status).toBe("WAITING_FOR_APPROVAL");
    const second = (await harness.host.getReport(runId))?.pending;
    expect(second?.gates).toEqual([2]);
    expect(second?.calls.map((call) => call.name)).toEqual(["delete_file", "read_file"]);
  });

  it("executes nothing when an approval of every gate cannot be audited (503)", async () => {
    const { runId, pending } = await startWaiting(twoGates("approve all unaudited"));
    harness.faults.arm("approvals", 1);
    const error = await refused(
      harness.host.decide(runId, {
        approve: true,
        turnDigest: pending.turnDigest,
        actor: "alice",
        scope: "turn",
      }),
    );
    expect(error).toBeInstanceOf(NotAuditableError);
    expect(workspace(runId)).toEqual({ "old.txt": "old", "keep.txt": "keep" });
    expect(await events(runId, "call_started")).toEqual([]);
  });

  it("refuses a denial of the whole turn as invalid: a denial stops at the barrier anyway", async () => {
    const { runId, pending } = await startWaiting(twoGates("deny all"));
    const error = await refused(
      harness.host.decide(runId, {
        approve: false,
        turnDigest: pending.turnDigest,
        actor: "alice",
        scope: "turn",
      }),
    );
    expect(error).toBeInstanceOf(InvalidDecisionError);
    expect(error.message).toMatch(/^scope: /);
  });
});

/** deploy (gated) in three steps, a gated write in between: grants and revocations show in what waits. */
const deployThrice = (name: string): ScenarioInput => ({
  name,
  tools: [
    {
      name: "deploy",
      description: "Deploy",
      resourceClass: "write",
      effect: "NON_IDEMPOTENT_WRITE",
      approval: "always",
      result: { deployed: true },
    },
  ],
  model: {
    kind: "scripted",
    turns: [
      { calls: [{ id: "d1", name: "deploy", arguments: { version: 1 } }] },
      { calls: [{ id: "d2", name: "deploy", arguments: { version: 2 } }] },
      { calls: [{ id: "w", name: "write_file", arguments: { path: "log.txt", content: "2 deployed" } }] },
      { calls: [{ id: "d3", name: "deploy", arguments: { version: 3 } }] },
      finish,
    ],
  },
});

async function waitingTool(runId: string): Promise<string | undefined> {
  return (await harness.host.getReport(runId))?.pending?.calls[0]?.name;
}

describe("always allow this tool for this run", () => {
  it("lets later calls of the tool through, each audited as an automatic approval pointing to the grant", async () => {
    const { runId, pending } = await startWaiting(deployThrice("always allow"));
    const first = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      actorId: "u-alice",
      alwaysAllow: true,
    });
    // deploy 2 ran without a decision; the write still waits for one.
    expect(first.status).toBe("WAITING_FOR_APPROVAL");
    expect(await waitingTool(runId)).toBe("write_file");
    const [grant, automatic] = await harness.store.listApprovals(runId);
    expect(grant).toMatchObject({ kind: "decision", toolName: "deploy", callId: "d1" });
    expect(automatic).toMatchObject({
      kind: "automatic",
      approve: true,
      toolName: "deploy",
      callId: "d2",
      actor: "alice",
      actorId: "u-alice",
      grantedBy: grant?.decisionId,
    });
    const view = await harness.host.loadView(runId);
    expect(view?.allowedTools).toEqual({
      deploy: { decisionId: grant?.decisionId, actor: "alice", actorId: "u-alice" },
    });
    expect(view?.steps[1]?.calls[0]).toMatchObject({
      isGated: false,
      status: "ok",
      allowedBy: { actor: "alice" },
    });

    const pendingWrite = (await harness.host.getReport(runId))?.pending;
    const second = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pendingWrite?.turnDigest,
      actor: "alice",
    });
    // deploy 3 too: the grant lasts the run.
    expect(second.status).toBe("COMPLETED");
    expect((await harness.store.listApprovals(runId)).map((row) => row.kind)).toEqual([
      "decision",
      "automatic",
      "decision",
      "automatic",
    ]);
  });

  it("never reaches another run of the same scenario", async () => {
    const granted = await startWaiting(deployThrice("granted"));
    await harness.host.decide(granted.runId, {
      approve: true,
      turnDigest: granted.pending.turnDigest,
      actor: "alice",
      alwaysAllow: true,
    });
    const other = await startWaiting(deployThrice("other"));
    expect(other.pending.calls[0]?.name).toBe("deploy");
    const next = await harness.host.decide(other.runId, {
      approve: true,
      turnDigest: other.pending.turnDigest,
      actor: "alice",
    });
    expect(next.status).toBe("WAITING_FOR_APPROVAL");
    expect(await waitingTool(other.runId)).toBe("deploy");
  });

  it("is revoked cleanly: from the next step on, the tool waits for a decision again", async () => {
    const { runId, pending } = await startWaiting(deployThrice("revoked"));
    await harness.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      alwaysAllow: true,
    });
    expect(await waitingTool(runId)).toBe("write_file");
    expect(await harness.host.revokeToolAllowance(runId, "deploy", { actor: "bob", actorId: null })).toBe(
      true,
    );
    expect((await harness.host.loadView(runId))?.allowedTools).toEqual({});
    const pendingWrite = (await harness.host.getReport(runId))?.pending;
    const after = await harness.host.decide(runId, {
      approve: true,
      turnDigest: pendingWrite?.turnDigest,
      actor: "alice",
    });
    expect(after.status).toBe("WAITING_FOR_APPROVAL");
    expect(await waitingTool(runId)).toBe("deploy");
    // Revoking what is not granted changes nothing.
    expect(await harness.host.revokeToolAllowance(runId, "deploy", { actor: "bob", actorId: null })).toBe(
      false,
    );
  });

  it("executes nothing a grant would let through when its automatic approval cannot be audited", async () => {
    const { runId, pending } = await startWaiting(deployThrice("automatic unaudited"));
    // The audit takes the grant's own row, then refuses every automatic approval.
    const auditDown = harness.hostWith((store) => ({
      ...store,
      async startCalls(id, token, stepIndex, batchIndexes, options) {
        if (options.approvals?.length) throw new Error("the audit is down");
        return store.startCalls(id, token, stepIndex, batchIndexes, options);
      },
    }));
    const result = await auditDown.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      alwaysAllow: true,
    });
    expect(result.status).toBe("FAILED");
    const report = await harness.host.getReport(runId);
    expect(report?.error).toMatchObject({ code: "audit_failed" });
    expect(report?.error?.message).toContain("deploy");
    expect(report?.steps[1]?.calls[0]?.startSeq).toBeNull();
    expect((await harness.store.listApprovals(runId)).map((row) => row.kind)).toEqual(["decision"]);
  });

  it("refuses a grant with a denial as invalid", async () => {
    const { runId, pending } = await startWaiting(deployThrice("deny with grant"));
    const error = await refused(
      harness.host.decide(runId, {
        approve: false,
        turnDigest: pending.turnDigest,
        actor: "alice",
        alwaysAllow: true,
      }),
    );
    expect(error).toBeInstanceOf(InvalidDecisionError);
    expect(error.message).toMatch(/^alwaysAllow: /);
  });
});

describe("approvals that expire", () => {
  /** A host and store on a clock the test moves; no timers: the deadline sweep does the work. */
  function onClock() {
    const clock = { now: Date.parse("2026-11-30T08:00:00Z") };
    const store = createMemoryRunStore({ now: () => clock.now });
    const host = createMemoryRunHost({ store, now: () => clock.now, deadlineTimers: false });
    return { clock, store, host };
  }

  const timed = (input: ScenarioInput, seconds: number, toolSeconds?: number): ScenarioInput => ({
    ...input,
    approvalTimeoutSeconds: seconds,
    ...(toolSeconds === undefined
      ? {}
      : {
          tools: [
            {
              name: "deploy",
              description: "Deploy",
              resourceClass: "write" as const,
              effect: "NON_IDEMPOTENT_WRITE" as const,
              approval: "always" as const,
              approvalTimeoutSeconds: toolSeconds,
            },
          ],
        }),
  });

  it("warns at 80% of the time, then expires: its own status, event, audit row and outcome, never denied", async () => {
    const { clock, store, host } = onClock();
    const { runId, settled } = await host.startRun(buildScenario(timed(twoGates("expires"), 100)));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await host.getReport(runId))?.pending;
    expect(pending?.expiresAt).toBe("2026-11-30T08:01:40.000Z");

    clock.now += 79_000;
    expect(await host.sweepApprovalDeadlines()).toEqual([]);
    expect((await host.loadView(runId))?.pending?.isExpiring).toBe(false);
    clock.now += 2_000;
    expect(await host.sweepApprovalDeadlines()).toEqual([]);
    expect((await host.loadView(runId))?.pending?.isExpiring).toBe(true);
    // Announced once.
    await host.sweepApprovalDeadlines();
    expect(
      (await store.readEvents(runId, 0)).filter((event) => event.type === "approval_expiring"),
    ).toHaveLength(1);

    clock.now += 19_000;
    const [expired] = await host.sweepApprovalDeadlines();
    expect(expired?.runId).toBe(runId);
    expect(await expired?.settled).toBe("COMPLETED");
    const report = await host.getReport(runId);
    expect(report?.steps[0]?.calls.map((call) => call.status)).toEqual([
      "expired",
      "invalidated",
      "invalidated",
      "invalidated",
    ]);
    expect(report?.steps[0]?.calls[0]?.error?.message).toMatch(/expired/);
    expect(JSON.stringify(report?.steps[0]?.calls)).not.toMatch(/denied/i);
    expect(report?.decisions).toMatchObject([
      { kind: "expiry", outcome: "expired", approve: false, audited: true },
    ]);
    expect(host.toolContext(runId).workspace.snapshot()).toEqual({ "old.txt": "old", "keep.txt": "keep" });
    const view = await host.loadView(runId);
    expect(view?.decisions).toMatchObject([{ kind: "expiry", outcome: "expired" }]);
  });

  it("tells a decision that arrives after the deadline that the turn expired (409 not_waiting), before and after the sweep", async () => {
    const { clock, host } = onClock();
    const { runId, settled } = await host.startRun(buildScenario(timed(oneWrite("late"), 10)));
    await settled;
    const pending = (await host.getReport(runId))?.pending;
    clock.now += 10_000;
    const early = await refused(
      host.decide(runId, { approve: true, turnDigest: pending?.turnDigest, actor: "alice" }),
    );
    expect(early.code).toBe("not_waiting");
    expect(early.message).toMatch(/expired/);
    const [expired] = await host.sweepApprovalDeadlines();
    await expired?.settled;
    const late = await refused(
      host.decide(runId, { approve: true, turnDigest: pending?.turnDigest, actor: "alice" }),
    );
    expect(late.code).toBe("not_waiting");
    expect(late.message).toMatch(/expired/);
    expect(host.toolContext(runId).workspace.snapshot()).toEqual({});
  });

  it("takes the barrier tool's own timeout over the scenario's, and a decision in time stops the clock", async () => {
    const { clock, host } = onClock();
    const scenario = timed(
      {
        name: "tool timeout",
        model: { kind: "scripted", turns: [{ calls: [{ name: "deploy", arguments: {} }] }, finish] },
      },
      3_600,
      30,
    );
    const { runId, settled } = await host.startRun(buildScenario(scenario));
    await settled;
    const pending = (await host.getReport(runId))?.pending;
    expect(pending?.expiresAt).toBe("2026-11-30T08:00:30.000Z");
    clock.now += 29_000;
    expect(
      (await host.decide(runId, { approve: true, turnDigest: pending?.turnDigest, actor: "alice" })).status,
    ).toBe("COMPLETED");
    clock.now += 60_000;
    expect(await host.sweepApprovalDeadlines()).toEqual([]);
  });

  it("a run without a timeout never expires", async () => {
    const { clock, host } = onClock();
    const { runId, settled } = await host.startRun(buildScenario(oneWrite("no timeout")));
    await settled;
    expect((await host.getReport(runId))?.pending?.expiresAt).toBeUndefined();
    clock.now += 365 * 24 * 3_600_000;
    expect(await host.sweepApprovalDeadlines()).toEqual([]);
  });
});

describe("a scenario's decisions (headless runs, the CLI)", () => {
  it("can edit, approve every gate and grant a tool, each as from any other surface", async () => {
    const report = await runScenarioHeadless(
      harness.host,
      buildScenario({
        ...twoGates("headless variants"),
        decisions: [
          {
            approve: true,
            actor: "ci",
            scope: "turn",
            editedArguments: { path: "renamed.txt", content: "fresh" },
          },
        ],
      }),
    );
    expect(report.status).toBe("COMPLETED");
    expect(harness.host.toolContext(report.runId).workspace.snapshot()).toEqual({
      "renamed.txt": "fresh",
      "keep.txt": "keep",
    });
    expect(report.decisions.map((row) => [row.batchIndex, row.scope, row.editedArguments !== null])).toEqual([
      [0, "turn", true],
      [2, "turn", false],
    ]);
  });
});
