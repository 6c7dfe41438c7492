import "server-only";
import type { Db } from "@/db/client";
import { listWaitingRuns } from "@/db/repositories/run-queries";
import type { InboxItem } from "@/lib/queries/inbox-item";
import { decodeSuspendedState, UnreadableStateError } from "@/lib/runtime";

/**
 * Every run waiting for a decision, newest wait first, with its pending turn.
 * A run whose state cannot be decoded is listed with the reason instead of
 * being hidden: an operator has to see it to deal with it.
 */
export async function listInbox(db: Db): Promise<InboxItem[]> {
  const rows = await listWaitingRuns(db);
  return rows.map((row) => {
    const base = {
      runId: row.id,
      name: row.name,
      waitingSince: row.waitingSince?.toISOString() ?? null,
    };
    try {
      const state = decodeSuspendedState(row.id, row.state);
      return { ...base, stepIndex: state.stepIndex, pending: state.pending, unreadable: null };
    } catch (error) {
      if (!UnreadableStateError.isInstance(error)) throw error;
      return { ...base, stepIndex: null, pending: null, unreadable: error.message };
    }
  });
}
