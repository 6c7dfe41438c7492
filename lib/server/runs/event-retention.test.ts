import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { listEventPartitions } from "@/db/event-partitions";
import { rowsOf } from "@/db/repositories/append-event";
import { approvals, runChanges } from "@/db/schema";
import { splitEventPartitionNow } from "@/db/testing/split-event-partition";
import { testDriverName } from "@/db/testing/test-database";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";
import { applyEventRetention, olderThanSchema } from "./event-retention";

const DAY = 86_400_000;
const harnesses: ScenarioHarness[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
afterAll(async () => {
  for (const harness of harnesses) await harness.close();
});

async function openHarness(): Promise<ScenarioHarness> {
  const harness = await openScenarioHarness();
  harnesses.push(harness);
  return harness;
}

function scratchFolder(): string {
  const folder = path.join(mkdtempSync(path.join(tmpdir(), "tp-retention-")), "out");
  folders.push(path.dirname(folder));
  return folder;
}

async function startWaiting(harness: ScenarioHarness, name: string): Promise<string> {
  const { runId, settled } = await harness.service.startRun(buildScenario(gatedWriteScenario(name)));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  return runId;
}

async function approveToTheEnd(harness: ScenarioHarness, runId: string): Promise<void> {
  const pending = (await harness.service.getReport(runId))?.pending;
  if (!pending) throw new Error(`run ${runId} is not waiting`);
  const { status } = await harness.service.decide(runId, {
    approve: true,
    turnDigest: pending.turnDigest,
    actor: "alice",
  });
  expect(status).toBe("COMPLETED");
}

async function partitionsOf(harness: ScenarioHarness, runId: string): Promise<string[]> {
  const result = await harness.handle.db.execute(
    sql`select distinct tableoid::regclass::text as partition from run_events where run_id = ${runId}::uuid`,
  );
  return rowsOf<{ partition: string }>(result).map((row) => row.partition);
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe(`retention on ${testDriverName}, on an injected clock`, () => {
  it("writes an old finished run's export, report and checksums, then drops its partition and run; the live run's partition and the audit stay", {
    timeout: 60_000,
  }, async () => {
    const harness = await openHarness();
    const old = await startWaiting(harness, "old and finished");
    await approveToTheEnd(harness, old);
    const { before, after } = await splitEventPartitionNow(harness.handle.db);
    const live = await startWaiting(harness, "still waiting");
    expect(await partitionsOf(harness, old)).toEqual([before]);
    expect(await partitionsOf(harness, live)).toEqual([after]);
    const oldExport = await harness.service.exportScenario(old);
    const oldReport = await harness.service.getReport(old);
    const liveEvents = await harness.service.readEvents(live, 0);
    const outDir = scratchFolder();
    const now = new Date(Date.now() + 91 * DAY);

    // A dry run says what would go, and writes and drops nothing.
    const dryRun = await applyEventRetention(harness.handle.db, harness.service, {
      olderThanDays: 90,
      outDir,
      dryRun: true,
      now,
    });
    expect(dryRun.droppedPartitions).toContain(before);
    expect(dryRun.exportedRuns).toEqual([{ runId: old, files: [] }]);
    expect(existsSync(outDir)).toBe(false);
    expect(await partitionsOf(harness, old)).toEqual([before]);

    // Younger than asked: nothing goes.
    const tooYoung = await applyEventRetention(harness.handle.db, harness.service, {
      olderThanDays: 200,
      outDir,
      dryRun: false,
      now,
    });
    expect(tooYoung.droppedPartitions).not.toContain(before);
    expect(tooYoung.exportedRuns).toEqual([]);

    const outcome = await applyEventRetention(harness.handle.db, harness.service, {
      olderThanDays: 90,
      outDir,
      dryRun: false,
      now,
    });
    expect(outcome.droppedPartitions).toContain(before);
    expect(outcome.droppedPartitions).not.toContain(after);
    expect(outcome.exportedRuns).toEqual([
      { runId: old, files: [`${old}.export.json`, `${old}.report.json`, `${old}.sha256`] },
    ]);
    expect(JSON.parse(readFileSync(path.join(outDir, `${old}.export.json`), "utf8"))).toEqual(oldExport);
    expect(JSON.parse(readFileSync(path.join(outDir, `${old}.report.json`), "utf8"))).toEqual(oldReport);
    expect(readFileSync(path.join(outDir, `${old}.sha256`), "utf8")).toBe(
      `${sha256(path.join(outDir, `${old}.export.json`))}  ${old}.export.json\n` +
        `${sha256(path.join(outDir, `${old}.report.json`))}  ${old}.report.json\n`,
    );

    const names = (await listEventPartitions(harness.handle.db)).map((partition) => partition.name);
    expect(names).not.toContain(before);
    expect(names).toContain(after);
    expect(await harness.service.getReport(old)).toBeNull();
    // The live run is untouched and goes on.
    expect(await harness.service.readEvents(live, 0)).toEqual(liveEvents);
    await approveToTheEnd(harness, live);
    // The audit keeps the old run's decision, and the deletion is on record.
    expect(await harness.handle.db.select().from(approvals).where(eq(approvals.runId, old))).toHaveLength(1);
    expect(
      await harness.handle.db
        .select({ kind: runChanges.kind, actorName: runChanges.actorName })
        .from(runChanges)
        .where(eq(runChanges.runId, old)),
    ).toEqual([{ kind: "deleted", actorName: "retention (command line)" }]);
  });

  it("keeps a partition whose finished run also has events in a partition that stays: a run's log goes whole or not at all", {
    timeout: 60_000,
  }, async () => {
    const harness = await openHarness();
    const spanning = await startWaiting(harness, "spans the boundary");
    const { before, after } = await splitEventPartitionNow(harness.handle.db);
    await approveToTheEnd(harness, spanning);
    const live = await startWaiting(harness, "still waiting");
    expect((await partitionsOf(harness, spanning)).sort()).toEqual([before, after].sort());

    const outDir = scratchFolder();
    const outcome = await applyEventRetention(harness.handle.db, harness.service, {
      olderThanDays: 90,
      outDir,
      dryRun: false,
      now: new Date(Date.now() + 91 * DAY),
    });
    expect(outcome.droppedPartitions).not.toContain(before);
    expect(outcome.exportedRuns).toEqual([]);
    expect(outcome.keptPartitions).toContainEqual({
      partition: before,
      reason: `run ${spanning} also has events in ${after}, which stays`,
    });
    expect(await partitionsOf(harness, live)).toEqual([after]);
    expect((await harness.service.getReport(spanning))?.status).toBe("COMPLETED");
  });
});

describe(`retention on ${testDriverName} beside a run that waits`, () => {
  it("leaves alone an old partition holding a run that has not ended, which then goes on", {
    timeout: 60_000,
  }, async () => {
    const harness = await openHarness();
    const finished = await startWaiting(harness, "finished long ago");
    await approveToTheEnd(harness, finished);
    const waiting = await startWaiting(harness, "waits for months");
    const { before } = await splitEventPartitionNow(harness.handle.db);
    const outDir = scratchFolder();
    const outcome = await applyEventRetention(harness.handle.db, harness.service, {
      olderThanDays: 90,
      outDir,
      dryRun: false,
      now: new Date(Date.now() + 91 * DAY),
    });
    expect(outcome.droppedPartitions).not.toContain(before);
    expect(outcome.exportedRuns).toEqual([]);
    expect(outcome.keptPartitions).toContainEqual({
      partition: before,
      reason: `run ${waiting} has not ended (WAITING_FOR_APPROVAL)`,
    });
    expect(await partitionsOf(harness, finished)).toEqual([before]);
    await approveToTheEnd(harness, waiting);
  });
});

describe("--older-than", () => {
  it("takes whole days and refuses anything else by name", () => {
    expect(olderThanSchema.parse("90d")).toBe(90);
    for (const wrong of ["0d", "90", "1.5d", "-3d", "90h", ""]) {
      expect(olderThanSchema.safeParse(wrong).error?.issues[0]?.message).toBe(
        "--older-than takes whole days, like 90d",
      );
    }
  });
});
