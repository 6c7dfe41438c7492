import { describe, expect, it } from "vitest";
import type { ScenarioInput } from "../scenario/scenario-schema";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore } from "../testing/memory-run-store";
import type { MemoryToolContext } from "../testing/memory-tool-context";
import { buildScenario } from "../testing/scenario-harness";
import { StoreUnavailableError } from "./run-errors";
import type { RunStore } from "./run-store";

const LEASE_MS = 1_000;
const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };

type StoreCall = { method: keyof RunStore; args: unknown[] };

/**
 * Two instances on one store whose clock the test holds. The first one's
 * writes fail while `failWhen` matches (once each, as a database that went
 * away and came back): a failure that passes, not a crash, so the first
 * instance is still there and must stop by itself.
 */
function twoInstances(failWhen: (call: StoreCall) => Error | null) {
  const clock = { now: Date.parse("2026-12-01T08:00:00Z") };
  const store = createMemoryRunStore({ now: () => clock.now });
  const contexts = new Map<string, MemoryToolContext>();
  const failed: string[] = [];
  const failing = (inner: RunStore): RunStore =>
    Object.fromEntries(
      Object.entries(inner).map(([method, implementation]) => [
        method,
        async (...args: unknown[]) => {
          const error = failWhen({ method: method as keyof RunStore, args });
          if (error) {
            failed.push(method);
            throw error;
          }
          return (implementation as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as unknown as RunStore;
  const first = createMemoryRunHost({
    store,
    contexts,
    wrapStore: failing,
    leaseMs: LEASE_MS,
    instanceId: "first",
  });
  const second = createMemoryRunHost({ store, contexts, leaseMs: LEASE_MS, instanceId: "second" });
  return {
    store,
    first,
    second,
    failed,
    /** Lets the lease run out and has the second instance sweep once. */
    async recover(runId: string) {
      clock.now += LEASE_MS + 1;
      const taken = await second.recoverExpiredRuns();
      expect(taken.map((recovery) => recovery.runId)).toEqual([runId]);
      return taken[0]?.settled;
    },
  };
}

/** Fails the first settle of `batchIndex` with `error` (once). */
function failFirstSettleOf(batchIndex: number, error: Error) {
  let hasFailed = false;
  return (call: StoreCall) => {
    if (hasFailed || call.method !== "settleCalls") return null;
    const settled = call.args[3] as Array<{ batchIndex: number }>;
    if (!settled.some((entry) => entry.batchIndex === batchIndex)) return null;
    hasFailed = true;
    return error;
  };
}

const connectionLost = () => new StoreUnavailableError("connection terminated");

async function callEvents(host: { readEvents: RunStore["readEvents"] }, runId: string) {
  const events = await host.readEvents(runId, 0);
  return {
    events,
    starts: (batchIndex: number) =>
      events.filter(
        (event) =>
          event.type === "call_started" &&
          event.payload.stepIndex === 0 &&
          event.payload.batchIndex === batchIndex,
      ).length,
  };
}

describe("a write that cannot be stored stops the worker, never the truth", () => {
  it("stops the worker when a read's outcome cannot be stored: the run does not go on, recovery runs the read again", async () => {
    // A plain driver error, not even a recognised outage: an outcome not stored is never gone past.
    const instances = twoInstances(failFirstSettleOf(0, new Error("write failed: connection refused")));
    const { runId, settled } = await instances.first.startRun(
      buildScenario({
        name: "read outcome lost",
        workspace: { "a.txt": "A" },
        model: {
          kind: "scripted",
          turns: [{ calls: [{ name: "read_file", arguments: { path: "a.txt" } }] }, finish],
        },
      }),
    );
    expect(await settled).toBe("RUNNING");
    expect(instances.failed).toEqual(["settleCalls"]);
    // Left as a crash leaves it: RUNNING, its call running, nothing after it, the lease left to lapse.
    const row = instances.store.inspect(runId);
    expect(row.status).toBe("RUNNING");
    const before = await callEvents(instances.second, runId);
    expect(before.events.at(-1)).toMatchObject({ type: "call_started" });

    expect(await instances.recover(runId)).toBe("COMPLETED");
    const after = await callEvents(instances.second, runId);
    expect(after.starts(0)).toBe(2);
    const report = await instances.second.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "ok" });
    expect(after.events.map((event) => event.seq)).toEqual(after.events.map((_, index) => index + 1));
  });

  it("never sends a non-idempotent write again when its outcome could not be stored: recovery settles it interrupted", async () => {
    const instances = twoInstances(failFirstSettleOf(0, connectionLost()));
    const { runId, settled } = await instances.first.startRun(
      buildScenario({
        name: "task outcome lost",
        workspace: { "a.txt": "A" },
        approvals: { task_create: "never" },
        model: {
          kind: "scripted",
          turns: [{ calls: [{ name: "task_create", arguments: { title: "ship it" } }] }, finish],
        },
      }),
    );
    expect(await settled).toBe("RUNNING");
    expect(instances.store.inspect(runId).status).toBe("RUNNING");
    expect(await instances.recover(runId)).toBe("COMPLETED");
    expect(instances.second.toolContext(runId).tasks.list()).toHaveLength(1);
    const after = await callEvents(instances.second, runId);
    expect(after.starts(0)).toBe(1);
    const report = await instances.second.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "error", error: { code: "interrupted" } });
  });

  it("leaves a run to recovery, never FAILED internal_error, when the database goes away between calls", async () => {
    let outage = true;
    const instances = twoInstances((call) => {
      // The database goes away as the next step is stored, and is back for the failure's own write.
      if (outage && call.method === "recordStep") {
        outage = false;
        return connectionLost();
      }
      return null;
    });
    const { runId, settled } = await instances.first.startRun(
      buildScenario({
        name: "outage between steps",
        workspace: { "a.txt": "A" },
        model: {
          kind: "scripted",
          turns: [{ calls: [{ name: "read_file", arguments: { path: "a.txt" } }] }, finish],
        },
      }),
    );
    expect(await settled).toBe("RUNNING");
    expect(instances.store.inspect(runId)).toMatchObject({ status: "RUNNING", error: null });
    expect(await instances.recover(runId)).toBe("COMPLETED");
  });

  it("leaves a failing run to recovery when its end cannot be stored for want of a database", async () => {
    const instances = twoInstances((call) =>
      call.method === "finishRun" && (call.args[2] as string) === "FAILED" ? connectionLost() : null,
    );
    const input: ScenarioInput = {
      name: "model script runs out",
      model: { kind: "scripted", turns: [] },
    };
    const { runId, settled } = await instances.first.startRun(buildScenario(input));
    expect(await settled).toBe("RUNNING");
    expect(instances.store.inspect(runId).status).toBe("RUNNING");
    // The second instance finds the same failure and can store it.
    expect(await instances.recover(runId)).toBe("FAILED");
  });
});
