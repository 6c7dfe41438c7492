import "server-only";
import { createHash } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Db } from "@/db/client";
import { dropRetainedPartitions, planEventRetention } from "@/db/repositories/event-retention";

/** `--older-than 90d`: whole days, at least one. */
export const olderThanSchema = z
  .string()
  .regex(/^[1-9]\d*d$/, "--older-than takes whole days, like 90d")
  .transform((value) => Number.parseInt(value, 10));

/** What retention reads of a run to keep it: the run service's own export and report. */
export interface RetainedRunReader {
  getReport(runId: string): Promise<unknown>;
  exportScenario(runId: string): Promise<unknown>;
}

export interface RetentionOptions {
  olderThanDays: number;
  /** Where each run's export, report and checksums go (made if missing). */
  outDir: string;
  /** Says what would go, writing and dropping nothing. */
  dryRun: boolean;
  /** The clock, injected by tests. */
  now: Date;
}

export interface RetentionOutcome {
  dryRun: boolean;
  cutoff: string;
  droppedPartitions: string[];
  exportedRuns: Array<{ runId: string; files: string[] }>;
  keptPartitions: Array<{ partition: string; reason: string }>;
}

/**
 * Keeps a year of events affordable (docs/housekeeping.md#retention): each finished run whose
 * events lie only in partitions older than `olderThanDays` is written out (export, report and a
 * `sha256sum -c` file, each flushed to disk), and only then are those partitions detached and
 * dropped with the runs' rows, in one transaction. The approvals audit is never touched.
 */
export async function applyEventRetention(
  db: Db,
  reader: RetainedRunReader,
  options: RetentionOptions,
): Promise<RetentionOutcome> {
  const cutoff = new Date(options.now.getTime() - options.olderThanDays * 86_400_000);
  const plan = await planEventRetention(db, cutoff);
  const outcome: RetentionOutcome = {
    dryRun: options.dryRun,
    cutoff: cutoff.toISOString(),
    droppedPartitions: plan.partitions.map((partition) => partition.name),
    exportedRuns: [],
    keptPartitions: plan.kept,
  };
  if (options.dryRun) {
    outcome.exportedRuns = plan.runIds.map((runId) => ({ runId, files: [] }));
    return outcome;
  }
  await mkdir(options.outDir, { recursive: true });
  for (const runId of plan.runIds) {
    outcome.exportedRuns.push({ runId, files: await writeRunArchive(reader, options.outDir, runId) });
  }
  await dropRetainedPartitions(db, plan, "retention (command line)");
  return outcome;
}

/** `<runId>.export.json`, `<runId>.report.json` and `<runId>.sha256` naming both, each synced. */
async function writeRunArchive(reader: RetainedRunReader, outDir: string, runId: string): Promise<string[]> {
  const [exported, report] = await Promise.all([reader.exportScenario(runId), reader.getReport(runId)]);
  if (!exported || !report)
    throw new Error(`run ${runId} could not be read for its export; nothing was dropped`);
  const files = [
    { name: `${runId}.export.json`, content: `${JSON.stringify(exported, null, 2)}\n` },
    { name: `${runId}.report.json`, content: `${JSON.stringify(report, null, 2)}\n` },
  ];
  const checksums = files
    .map((file) => `${createHash("sha256").update(file.content).digest("hex")}  ${file.name}\n`)
    .join("");
  for (const file of [...files, { name: `${runId}.sha256`, content: checksums }]) {
    await writeDurably(path.join(outDir, file.name), file.content);
  }
  return [...files.map((file) => file.name), `${runId}.sha256`];
}

/** A file on disk before anything it keeps is dropped. */
async function writeDurably(filePath: string, content: string): Promise<void> {
  const file = await open(filePath, "w");
  try {
    await file.writeFile(content, "utf8");
    await file.sync();
  } finally {
    await file.close();
  }
}
