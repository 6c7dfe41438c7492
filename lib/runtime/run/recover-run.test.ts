import { describe, expect, it } from "vitest";
import type { Model, ModelCompletionRequest } from "../model/model";
import type { ScenarioInput } from "../scenario/scenario-schema";
import { createMemoryRunHost, type MemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore, type MemoryRunStore } from "../testing/memory-run-store";
import type { MemoryToolContext } from "../testing/memory-tool-context";
import { slowReadTool } from "../testing/scenario-fixtures";
import { buildScenario } from "../testing/scenario-harness";
import { rebuildTranscript } from "./recover-run";
import type { RunStore } from "./run-store";

const LEASE_MS = 1_000;
const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };
const never = <T>() => new Promise<T>(() => {});

type StoreCall = { method: keyof RunStore; args: unknown[] };

/**
 * Two instances on one store, with the store's clock in the test's hands:
 * `first` dies (every store call from the moment `crashWhen` matches never
 * returns, as from a killed process; with `after`, that one call still
 * happens), `second` recovers once the clock passes the lease.
 */
/** The write that records a decision: with its claim, or after it. */
const recordsTheDecision = (call: StoreCall) =>
  call.method === "claimAndRecordDecision" || call.method === "recordApproval";

function twoInstances(options: {
  crashWhen?: (call: StoreCall) => boolean;
  after?: boolean;
  /** Decisions are claimed, then recorded, in two writes (as when the one-write claim finds the run changed). */
  decideInTwoWrites?: boolean;
  firstModel?: (model: Model) => Model;
  secondModel?: (model: Model) => Model;
}) {
  const clock = { now: Date.parse("2026-11-30T08:00:00Z") };
  const store: MemoryRunStore = createMemoryRunStore({ now: () => clock.now });
  const contexts = new Map<string, MemoryToolContext>();
  let isDead = false;
  const crashing = (inner: RunStore): RunStore =>
    Object.fromEntries(
      Object.entries(inner).map(([method, implementation]) => [
        method,
        async (...args: unknown[]) => {
          if (isDead) return never();
          if (method === "claimAndRecordDecision" && options.decideInTwoWrites) return false;
          if (options.crashWhen?.({ method: method as keyof RunStore, args })) {
            isDead = true;
            if (!options.after) return never();
            await (implementation as (...a: unknown[]) => Promise<unknown>)(...args);
            return never();
          }
          return (implementation as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as unknown as RunStore;
  const first = createMemoryRunHost({
    store,
    contexts,
    wrapStore: crashing,
    leaseMs: LEASE_MS,
    instanceId: "first",
    wrapModel: options.firstModel,
  });
  const second = createMemoryRunHost({
    store,
    contexts,
    leaseMs: LEASE_MS,
    instanceId: "second",
    wrapModel: options.secondModel,
  });
  return {
    store,
    first,
    second,
    isDead: () => isDead,
    /** The first instance dies now, wherever it is. */
    killFirst() {
      isDead = true;
    },
    /** Moves the store's clock past every lease taken so far. */
    expireLease() {
      clock.now += LEASE_MS + 1;
    },
    /** Lets the lease run out, then has the second instance sweep once; resolves with what the run came to. */
    async recover(runId: string) {
      await until(() => isDead, "the first instance to die");
      clock.now += LEASE_MS + 1;
      const taken = await second.recoverExpiredRuns();
      expect(taken.map((recovery) => recovery.runId)).toEqual([runId]);
      return taken[0]?.settled;
    },
  };
}

async function until(condition: () => boolean, what: string) {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const isSettleOf = (batchIndex: number) => (call: StoreCall) =>
  call.method === "settleCalls" &&
  (call.args[3] as Array<{ batchIndex: number }>).some((settled) => settled.batchIndex === batchIndex);

async function startsOf(host: MemoryRunHost, runId: string, stepIndex: number, batchIndex: number) {
  const events = await host.readEvents(runId, 0);
  return events.filter(
    (event) =>
      event.type === "call_started" &&
      event.payload.stepIndex === stepIndex &&
      event.payload.batchIndex === batchIndex,
  ).length;
}

const oneCall = (
  call: { name: string; arguments: unknown },
  extra: Partial<ScenarioInput> = {},
): ScenarioInput => ({
  name: `recover ${call.name}`,
  workspace: { "a.txt": "A" },
  model: {
    kind: "scripted",
    turns: [{ calls: [call as { name: string; arguments: Record<string, unknown> }] }, finish],
  },
  ...extra,
});

describe("recovering a run whose worker died (its lease ran out)", () => {
  it("runs a read that was left running again, and says who recovered it and from where", async () => {
    const instances = twoInstances({ crashWhen: isSettleOf(0) });
    const { runId } = await instances.first.startRun(
      buildScenario(oneCall({ name: "read_file", arguments: { path: "a.txt" } })),
    );
    expect(await instances.recover(runId)).toBe("COMPLETED");
    expect(await startsOf(instances.second, runId, 0, 0)).toBe(2);
    const report = await instances.second.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({
      status: "ok",
      result: { path: "a.txt", content: "A" },
    });
    const events = await instances.second.readEvents(runId, 0);
    expect(events.find((event) => event.type === "run_recovered")?.payload).toEqual({
      by: "second",
      from: { stepIndex: 0, segment: 0 },
      resumption: "step",
      reissuedCompletion: false,
    });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it("runs an idempotent write that was left running again", async () => {
    const instances = twoInstances({ crashWhen: isSettleOf(0) });
    const { runId } = await instances.first.startRun(
      buildScenario(
        oneCall(
          { name: "write_file", arguments: { path: "b.txt", content: "B" } },
          { approvals: { write_file: "never" } },
        ),
      ),
    );
    expect(await instances.recover(runId)).toBe("COMPLETED");
    expect(await startsOf(instances.second, runId, 0, 0)).toBe(2);
    expect(instances.second.toolContext(runId).workspace.snapshot()).toMatchObject({ "b.txt": "B" });
  });

  it("never runs a non-idempotent write twice: it settles interrupted, the rest is invalidated, the model is told", async () => {
    const asked: ModelCompletionRequest[] = [];
    const instances = twoInstances({
      crashWhen: isSettleOf(0),
      secondModel: (model) => ({
        complete: (request) => {
          asked.push(request);
          return model.complete(request);
        },
      }),
    });
    const { runId } = await instances.first.startRun(
      buildScenario({
        name: "task then read",
        workspace: { "a.txt": "A" },
        approvals: { task_create: "never" },
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "task_create", arguments: { title: "ship it" } },
                { name: "read_file", arguments: { path: "a.txt" } },
              ],
            },
            finish,
          ],
        },
      }),
    );
    expect(await instances.recover(runId)).toBe("COMPLETED");
    expect(instances.second.toolContext(runId).tasks.list()).toHaveLength(1);
    expect(await startsOf(instances.second, runId, 0, 0)).toBe(1);
    const report = await instances.second.getReport(runId);
    const [task, read] = report?.steps[0]?.calls ?? [];
    expect(task).toMatchObject({ status: "error", error: { code: "interrupted" } });
    expect(read).toMatchObject({ status: "invalidated" });
    expect(read?.error?.message).toContain("the worker stopped");
    // The next completion's transcript tells the model what happened to each call.
    const told = asked[0]?.transcript.filter((entry) => entry.role === "tool");
    expect(told).toMatchObject([
      { name: "task_create", status: "error", error: { code: "interrupted" } },
      { name: "read_file", status: "invalidated" },
    ]);
  });

  it("goes on with an approval whose audit started the barrier before the worker died: an idempotent write runs again, audited once", async () => {
    const instances = twoInstances({ crashWhen: recordsTheDecision, after: true });
    const started = await instances.first.startRun(
      buildScenario(oneCall({ name: "write_file", arguments: { path: "b.txt", content: "B" } })),
    );
    expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await instances.first.getReport(started.runId))?.pending;
    void instances.first.decide(started.runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "alice",
    });
    expect(await instances.recover(started.runId)).toBe("COMPLETED");
    expect(await instances.store.listApprovals(started.runId)).toHaveLength(1);
    const events = await instances.second.readEvents(started.runId, 0);
    expect(events.filter((event) => event.type === "approval_decided")).toMatchObject([
      { payload: { actor: "alice", approve: true, audited: true } },
    ]);
    // Its start was stored with the audit; the recovering worker starts it again (write_file is idempotent).
    expect(await startsOf(instances.second, started.runId, 0, 0)).toBe(2);
    expect(instances.second.toolContext(started.runId).workspace.snapshot()).toMatchObject({ "b.txt": "B" });
    expect((await instances.second.getReport(started.runId))?.decisions).toHaveLength(1);
  });

  it("never runs an approved non-idempotent barrier twice when its worker died after the audit started it", async () => {
    const instances = twoInstances({ crashWhen: recordsTheDecision, after: true });
    const started = await instances.first.startRun(
      buildScenario(
        oneCall(
          { name: "task_create", arguments: { title: "ship" } },
          { approvals: { task_create: "always" } },
        ),
      ),
    );
    expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await instances.first.getReport(started.runId))?.pending;
    void instances.first.decide(started.runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "alice",
    });
    expect(await instances.recover(started.runId)).toBe("COMPLETED");
    expect(await startsOf(instances.second, started.runId, 0, 0)).toBe(1);
    expect(instances.second.toolContext(started.runId).tasks.list()).toHaveLength(0);
    const report = await instances.second.getReport(started.runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "error", error: { code: "interrupted" } });
    expect(report?.decisions).toMatchObject([{ actor: "alice", approve: true }]);
  });

  it("goes on with an approval of every gate after its worker died between them: the later gate does not wait again", async () => {
    const instances = twoInstances({ crashWhen: isSettleOf(0) });
    const started = await instances.first.startRun(
      buildScenario({
        name: "approve all, then die",
        workspace: { "old.txt": "old" },
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "write_file", arguments: { path: "new.txt", content: "edited later" } },
                { name: "delete_file", arguments: { path: "old.txt" } },
              ],
            },
            finish,
          ],
        },
      }),
    );
    expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await instances.first.getReport(started.runId))?.pending;
    void instances.first.decide(started.runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "alice",
      scope: "turn",
      editedArguments: { path: "new.txt", content: "edited" },
    });
    expect(await instances.recover(started.runId)).toBe("COMPLETED");
    // The edit survives the crash: the recovering worker runs what alice approved, then gate 2 without a wait.
    expect(instances.second.toolContext(started.runId).workspace.snapshot()).toEqual({ "new.txt": "edited" });
    const events = await instances.second.readEvents(started.runId, 0);
    expect(events.filter((event) => event.type === "awaiting_approval")).toHaveLength(1);
    expect(await instances.store.listApprovals(started.runId)).toHaveLength(2);
  });

  it("returns a run that was claimed for a decision, but never audited, to waiting at the same turn", async () => {
    // Only a decision claimed and recorded in two writes can die between them.
    const instances = twoInstances({
      crashWhen: (call) => call.method === "recordApproval",
      decideInTwoWrites: true,
    });
    const started = await instances.first.startRun(
      buildScenario(oneCall({ name: "write_file", arguments: { path: "b.txt", content: "B" } })),
    );
    await started.settled;
    const pending = (await instances.first.getReport(started.runId))?.pending;
    void instances.first.decide(started.runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "a",
    });
    expect(await instances.recover(started.runId)).toBe("WAITING_FOR_APPROVAL");
    const view = await instances.second.loadView(started.runId);
    expect(view).toMatchObject({
      status: "WAITING_FOR_APPROVAL",
      pending: { turnDigest: pending?.turnDigest },
    });
    expect(view?.log.slice(-2).map((entry) => entry.type)).toEqual(["run_recovered", "run_released"]);
    expect(await instances.store.listApprovals(started.runId)).toEqual([]);
    // Nothing was lost: the turn is decided as if the crash never happened.
    expect(
      await instances.second.decide(started.runId, {
        approve: true,
        turnDigest: pending?.turnDigest,
        actor: "b",
      }),
    ).toEqual({ outcome: "executed", status: "COMPLETED" });
  });

  it("asks the model again for a completion lost with its worker, and the report counts it", async () => {
    const instances = twoInstances({
      // The first instance dies while the model works on its second completion.
      firstModel: (model) => ({
        complete: async (request) => {
          if (request.completionIndex === 1) {
            setTimeout(() => instances.killFirst(), 0);
            return never();
          }
          return model.complete(request);
        },
      }),
    });
    const { runId } = await instances.first.startRun(
      buildScenario(oneCall({ name: "read_file", arguments: { path: "a.txt" } })),
    );
    expect(await instances.recover(runId)).toBe("COMPLETED");
    const report = await instances.second.getReport(runId);
    expect(report).toMatchObject({ modelCalls: 2, metrics: { recoveries: 1, recoveredCompletions: 1 } });
    expect(report?.steps).toHaveLength(2);
  });

  it("ends a run whose last step finished it when the worker died before saying so", async () => {
    const instances = twoInstances({ crashWhen: (call) => call.method === "finishRun" });
    const { runId } = await instances.first.startRun(
      buildScenario(oneCall({ name: "read_file", arguments: { path: "a.txt" } })),
    );
    expect(await instances.recover(runId)).toBe("COMPLETED");
    const report = await instances.second.getReport(runId);
    expect(report).toMatchObject({
      status: "COMPLETED",
      modelCalls: 2,
      metrics: { recoveredCompletions: 0 },
    });
  });

  it("fences out a worker that was only slow: once its run is taken over it writes nothing more", async () => {
    const store = createMemoryRunStore();
    const contexts = new Map<string, MemoryToolContext>();
    const slow = createMemoryRunHost({ store, contexts, leaseMs: LEASE_MS, instanceId: "slow" });
    const rescuer = createMemoryRunHost({ store, contexts, leaseMs: LEASE_MS, instanceId: "rescuer" });
    const { runId, settled } = await slow.startRun(
      buildScenario({
        name: "slow tool",
        tools: [slowReadTool(200)],
        model: { kind: "scripted", turns: [{ calls: [{ name: "slow_scan", arguments: {} }] }, finish] },
      }),
    );
    await until(() => store.inspect(runId).leaseExpiresAt !== null, "the run to start");
    // The slow worker's lease is made to run out, as if its renewals had stalled.
    await store.renewLease(runId, store.inspect(runId).claimToken ?? "", -1);
    const [taken] = await rescuer.recoverExpiredRuns();
    expect(await taken?.settled).toBe("COMPLETED");
    expect(await settled).toBe("RUNNING"); // it stopped: the run is someone else's
    const events = await rescuer.readEvents(runId, 0);
    expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it("lets a process take its own stalled run over: the drive that lost it aborts only its own step", async () => {
    const store = createMemoryRunStore();
    const host = createMemoryRunHost({ store, leaseMs: LEASE_MS, instanceId: "only" });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "a read longer than a renewal",
        tools: [slowReadTool(LEASE_MS)],
        model: { kind: "scripted", turns: [{ calls: [{ name: "slow_scan", arguments: {} }] }, finish] },
      }),
    );
    const readStarted = async () =>
      (await host.readEvents(runId, 0)).some((event) => event.type === "call_started");
    for (let attempt = 0; !(await readStarted()); attempt += 1) {
      if (attempt === 400) throw new Error("the read never started");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Its lease is made to run out, as if its renewals had stalled; the same process sweeps it up
    // (again if a renewal of the first drive came in between).
    let taken: Awaited<ReturnType<typeof host.recoverExpiredRuns>>[number] | undefined;
    for (let attempt = 0; !taken; attempt += 1) {
      if (attempt === 20) throw new Error("the run was never taken over");
      await store.renewLease(runId, store.inspect(runId).claimToken ?? "", -1);
      [taken] = await host.recoverExpiredRuns();
    }
    // The first drive's next renewal finds the run taken while the second drive's read is under way.
    expect(await settled).toBe("RUNNING");
    expect(await taken?.settled).toBe("COMPLETED");
    const view = await host.loadView(runId);
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["ok"]);
  });

  it("keeps a live worker's run: a lease renewed while a long tool runs is never taken over", async () => {
    const store = createMemoryRunStore();
    // A lease long enough that a busy machine's event-loop stalls (hundreds of ms under a CPU hog)
    // never outlast it, and a tool that runs for three of them: renewals must keep it.
    const host = createMemoryRunHost({ store, leaseMs: 1_000 });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "long tool",
        tools: [slowReadTool(3_000, "long_scan")],
        model: { kind: "scripted", turns: [{ calls: [{ name: "long_scan", arguments: {} }] }, finish] },
      }),
    );
    const sweeps: number[] = [];
    const sweeping = setInterval(async () => {
      sweeps.push((await host.recoverExpiredRuns()).length);
    }, 100);
    expect(await settled).toBe("COMPLETED");
    clearInterval(sweeping);
    expect(sweeps.length).toBeGreaterThan(5);
    expect(sweeps.every((taken) => taken === 0)).toBe(true);
    expect((await host.getReport(runId))?.metrics.recoveries).toBe(0);
  });

  it("cancels a run whose worker is gone at once, without waiting for the sweep", async () => {
    const instances = twoInstances({ crashWhen: isSettleOf(0) });
    const { runId } = await instances.first.startRun(
      buildScenario(oneCall({ name: "read_file", arguments: { path: "a.txt" } })),
    );
    await until(instances.isDead, "the first instance to die");
    instances.expireLease();
    expect(await instances.second.cancelRun(runId, "run")).toEqual({ status: "CANCELLED" });
    expect((await instances.second.getReport(runId))?.steps[0]?.calls[0]).toMatchObject({
      status: "invalidated",
    });
  });
});

describe("the transcript a recovered worker rebuilds", () => {
  it("is the one the model saw, completion by completion", async () => {
    const asked: ModelCompletionRequest[] = [];
    const host = createMemoryRunHost({
      wrapModel: (model) => ({
        complete: (request) => {
          asked.push(structuredClone({ ...request, signal: undefined }));
          return model.complete(request);
        },
      }),
    });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "repair, then a wave, then finish",
        workspace: { "a.txt": "A" },
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "no_such_tool", arguments: {} }] },
            {
              text: "reading",
              calls: [
                { name: "read_file", arguments: { path: "a.txt" } },
                { name: "read_file", arguments: { path: "missing.txt" } },
              ],
            },
            finish,
          ],
        },
      }),
    );
    expect(await settled).toBe("COMPLETED");
    const view = await host.loadView(runId);
    const steps = view?.steps ?? [];
    expect(asked).toHaveLength(3);
    for (const [index, request] of asked.entries()) {
      expect(rebuildTranscript([], steps.slice(0, index))).toEqual(request.transcript);
    }
  });
});
