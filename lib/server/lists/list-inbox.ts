import "server-only";
import type { Db } from "@/db/client";
import { countWaitingRuns, listWaitingRuns } from "@/db/repositories/run-list-queries";
import { capPersonName, decodePendingOfState, UnreadableStateError } from "@/lib/runtime";
import type { InboxItem, InboxPage } from "@/lib/wire/inbox-item";
import type { InboxFilter, RowCursor } from "@/lib/wire/list-filters";
import { encodePageCursor } from "./page-cursor";

/** The inbox's page size when a request names none. */
export const INBOX_PAGE_SIZE = 50;

/**
 * One page of the runs waiting for a decision that match the filter, in
 * waiting-time order, with their pending turns, the total, and the cursor of
 * the next page. A run whose
 * state cannot be decoded is listed with the reason instead of being hidden:
 * an operator has to see it to deal with it.
 */
export async function listInbox(
  db: Db,
  page: { limit?: number; after?: RowCursor | null; filter?: InboxFilter } = {},
): Promise<InboxPage> {
  const limit = page.limit ?? INBOX_PAGE_SIZE;
  const [rows, total] = await Promise.all([
    listWaitingRuns(db, { limit: limit + 1, after: page.after ?? null, filter: page.filter }),
    countWaitingRuns(db, page.filter),
  ]);
  const items = rows.slice(0, limit).map((row): InboxItem => {
    const base = {
      runId: row.id,
      name: row.name,
      startedBy: row.startedByName === null ? null : capPersonName(row.startedByName),
      waitingSince: row.waitingSince?.toISOString() ?? null,
    };
    try {
      const { stepIndex, pending } = decodePendingOfState(row.id, row);
      const barrierRule = typeof row.barrierRule === "string" ? row.barrierRule : null;
      return { ...base, stepIndex, pending, barrierRule, unreadable: null };
    } catch (error) {
      if (!UnreadableStateError.isInstance(error)) throw error;
      return { ...base, stepIndex: null, pending: null, barrierRule: null, unreadable: error.message };
    }
  });
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    items,
    total,
    nextCursor: last ? encodePageCursor({ time: last.cursorTime, id: last.id }) : null,
  };
}
