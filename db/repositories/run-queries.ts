import { and, asc, desc, eq, gt } from "drizzle-orm";
import type { Db } from "../client";
import { runEvents, runs, steps, toolCalls } from "../schema";

/** A run with its steps, calls and decision events: everything a report or the run view shows. */
export async function getRunDetail(db: Db, runId: string) {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) return null;
  const [stepRows, callRows, decisionEvents] = await Promise.all([
    db.select().from(steps).where(eq(steps.runId, runId)).orderBy(asc(steps.index)),
    db
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.runId, runId))
      .orderBy(asc(toolCalls.stepIndex), asc(toolCalls.batchIndex)),
    db
      .select()
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), eq(runEvents.type, "approval_decided")))
      .orderBy(asc(runEvents.seq)),
  ]);
  return { run, steps: stepRows, calls: callRows, decisionEvents };
}

export type RunDetail = NonNullable<Awaited<ReturnType<typeof getRunDetail>>>;

/** Events of a run after `afterSeq`, in order (SSE replay). */
export async function listEventsAfter(db: Db, runId: string, afterSeq: number) {
  return db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq));
}

/** Runs waiting for a decision, the longest-waiting last (newest waits first). */
export async function listWaitingRuns(db: Db) {
  return db
    .select({ id: runs.id, name: runs.name, waitingSince: runs.waitingSince, state: runs.state })
    .from(runs)
    .where(eq(runs.status, "WAITING_FOR_APPROVAL"))
    .orderBy(desc(runs.waitingSince), desc(runs.id));
}

/** The most recently started runs, newest first (the playground's "Recent runs"). */
export async function listRecentRuns(db: Db, limit: number) {
  return db
    .select({ id: runs.id, name: runs.name, status: runs.status, createdAt: runs.createdAt })
    .from(runs)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}
