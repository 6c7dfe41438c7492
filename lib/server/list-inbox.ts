import "server-only";
import type { Db } from "@/db/client";
import { countWaitingRuns, listWaitingRuns, type WaitingRunCursor } from "@/db/repositories/run-queries";
import type { InboxItem, InboxPage } from "@/lib/queries/inbox-item";
import { decodePendingOfState, UnreadableStateError } from "@/lib/runtime";

/** The inbox's page size when a request names none. */
export const INBOX_PAGE_SIZE = 50;

/**
 * One page of the runs waiting for a decision, newest wait first, with their
 * pending turns, the total, and the cursor of the next page. A run whose
 * state cannot be decoded is listed with the reason instead of being hidden:
 * an operator has to see it to deal with it.
 */
export async function listInbox(
  db: Db,
  page: { limit?: number; after?: WaitingRunCursor | null } = {},
): Promise<InboxPage> {
  const limit = page.limit ?? INBOX_PAGE_SIZE;
  const [rows, total] = await Promise.all([
    listWaitingRuns(db, { limit: limit + 1, after: page.after ?? null }),
    countWaitingRuns(db),
  ]);
  const items = rows.slice(0, limit).map((row): InboxItem => {
    const base = { runId: row.id, name: row.name, waitingSince: row.waitingSince?.toISOString() ?? null };
    try {
      const { stepIndex, pending } = decodePendingOfState(row.id, row);
      return { ...base, stepIndex, pending, unreadable: null };
    } catch (error) {
      if (!UnreadableStateError.isInstance(error)) throw error;
      return { ...base, stepIndex: null, pending: null, unreadable: error.message };
    }
  });
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    items,
    total,
    nextCursor: last ? encodeCursor({ waitingSince: last.cursorTime, id: last.id }) : null,
  };
}

/** The opaque cursor of the page after a row. */
export function encodeCursor(cursor: WaitingRunCursor): string {
  return Buffer.from(JSON.stringify([cursor.waitingSince, cursor.id])).toString("base64url");
}

/** A cursor back, or null when it is not one this server wrote. */
export function decodeCursor(text: string): WaitingRunCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [waitingSince, id] = value;
    if (
      waitingSince !== null &&
      (typeof waitingSince !== "string" || !/^[0-9 :.+-]{10,40}$/.test(waitingSince))
    ) {
      return null;
    }
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) return null;
    return { waitingSince, id };
  } catch {
    return null;
  }
}
