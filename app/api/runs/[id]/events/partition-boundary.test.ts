import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/repositories/append-event";
import { splitEventPartitionNow } from "@/db/testing/split-event-partition";
import { testDriverName } from "@/db/testing/test-database";
import type { RunStore } from "@/lib/runtime";
import { createRunService, type RunService } from "@/lib/server/runs/run-service";
import { processModelsAndMcp } from "@/lib/server/server-context";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { openSseReader } from "@/lib/server/testing/sse-reader";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// docs/housekeeping.md#a-year-of-events: a run goes on across a month's boundary of run_events.
let viewer: TestAccount;
let service: RunService;
let events: typeof import("./route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  events = await import("./route");
  service = await setup.runService();
});

const never = <T>() => new Promise<T>(() => {});

/**
 * A second instance that dies the moment its decision is recorded: from then on none of its
 * store calls returns, as from a killed process, and its claim on the run stays until its lease ends.
 */
function instanceThatDiesAfterDeciding() {
  let died: () => void = () => {};
  const hasDied = new Promise<void>((resolve) => {
    died = resolve;
  });
  let isDead = false;
  const dying = (inner: RunStore): RunStore =>
    Object.fromEntries(
      Object.entries(inner).map(([method, implementation]) => [
        method,
        async (...args: unknown[]) => {
          if (isDead) return never();
          const result = await (implementation as (...a: unknown[]) => Promise<unknown>)(...args);
          if (method === "claimAndRecordDecision" && result) {
            isDead = true;
            died();
            return never();
          }
          return result;
        },
      ]),
    ) as unknown as RunStore;
  const instance = createRunService(setup.handle, {
    log: () => {},
    wrapStore: dying,
    ...processModelsAndMcp(),
  });
  return { instance, hasDied };
}

describe(`a run across a partition boundary on ${testDriverName}`, () => {
  it("reads whole, is recovered after its worker dies, and its stream delivers every event across the boundary", {
    timeout: 60_000,
  }, async () => {
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("across months")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const waitedAt = (await service.readEvents(runId, 0)).length;
    const { before, after } = await splitEventPartitionNow(setup.handle.db);

    const stream = openSseReader(
      await events.GET(
        new Request(`http://test/api/runs/${runId}/events`, {
          headers: { ...viewer.headers, "last-event-id": "0" },
        }),
        { params: Promise.resolve({ id: runId }) },
      ),
    );

    // Decided on an instance that dies right after; the survivor takes the run over once the lease ends.
    const pending = (await service.getReport(runId))?.pending;
    if (!pending) throw new Error("the run is not waiting");
    const dying = instanceThatDiesAfterDeciding();
    void dying.instance.startDecision(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
    });
    await dying.hasDied;
    await setup.handle.db.execute(
      sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${runId}::uuid`,
    );
    const [recovered] = await service.recoverExpiredRuns({ runId });
    expect(await recovered?.settled).toBe("COMPLETED");

    const all = await service.readEvents(runId, 0);
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.at(-1)?.type).toBe("run_finished");
    const stored = rowsOf<{ seq: number; partition: string }>(
      await setup.handle.db.execute(
        sql`select seq, tableoid::regclass::text as partition from run_events where run_id = ${runId}::uuid order by seq`,
      ),
    );
    expect(stored.filter((row) => row.partition === before).map((row) => Number(row.seq))).toEqual(
      all.slice(0, waitedAt).map((event) => event.seq),
    );
    expect(stored.filter((row) => row.partition === after)).toHaveLength(all.length - waitedAt);
    expect(all.map((event) => event.type)).toContain("run_claimed");

    const streamed = await stream.until((message) => message.event === "run_finished");
    await stream.cancel();
    expect(
      streamed.filter((message) => message.id !== undefined).map((message) => Number(message.id)),
    ).toEqual(all.map((event) => event.seq));
    // Both sides of the boundary, the partition made just now included, refuse a rewrite.
    for (const partition of [before, after]) {
      await expect(
        setup.handle.db.execute(sql`delete from ${sql.identifier(partition)} where run_id = ${runId}::uuid`),
      ).rejects.toThrow();
    }
    expect(await service.readEvents(runId, 0)).toHaveLength(all.length);
    const report = await service.getReport(runId);
    expect(report?.metrics.recoveries).toBe(1);
  });
});
