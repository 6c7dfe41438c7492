import { and, eq } from "drizzle-orm";
import type { Db } from "../client";
import { runs } from "../schema";

/**
 * Overwrites a waiting run's suspended state with one no decoder accepts, as
 * a bad deploy or a hand edit would. Fault injection only; returns whether a
 * waiting run was changed.
 */
export async function corruptWaitingState(db: Db, runId: string): Promise<boolean> {
  const rows = await db
    .update(runs)
    .set({ state: { schemaVersion: 999, corrupted: "by fault injection" } })
    .where(and(eq(runs.id, runId), eq(runs.status, "WAITING_FOR_APPROVAL")))
    .returning({ id: runs.id });
  return rows.length > 0;
}
