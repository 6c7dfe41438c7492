import type { InboxItem, InboxPage } from "./inbox-item";

/**
 * What changed on the inbox's first page between two snapshots: the runs
 * that left it, the rows that are new or different, the order of every row,
 * and the new total. The live stream sends these after its first snapshot,
 * so a busy inbox costs the rows that changed, not the whole page each time.
 */
export interface InboxChanges {
  removed: string[];
  upserted: InboxItem[];
  /** Every run on the page after the change, newest wait first. */
  order: string[];
  total: number;
  nextCursor: string | null;
}

/** The changes from `before` to `after`, or null when they show the same thing. */
export function diffInboxPages(before: InboxPage, after: InboxPage): InboxChanges | null {
  const previous = new Map(before.items.map((item) => [item.runId, JSON.stringify(item)]));
  const current = new Set(after.items.map((item) => item.runId));
  const removed = before.items.map((item) => item.runId).filter((runId) => !current.has(runId));
  const upserted = after.items.filter((item) => previous.get(item.runId) !== JSON.stringify(item));
  const order = after.items.map((item) => item.runId);
  const isSameOrder =
    order.length === before.items.length &&
    order.every((runId, index) => before.items[index]?.runId === runId);
  if (
    removed.length === 0 &&
    upserted.length === 0 &&
    isSameOrder &&
    before.total === after.total &&
    before.nextCursor === after.nextCursor
  ) {
    return null;
  }
  return { removed, upserted, order, total: after.total, nextCursor: after.nextCursor };
}

/** `page` with `changes` applied: the page the changes were computed against, as it is now. */
export function applyInboxChanges(page: InboxPage, changes: InboxChanges): InboxPage {
  const rows = new Map(page.items.map((item) => [item.runId, item]));
  for (const runId of changes.removed) rows.delete(runId);
  for (const item of changes.upserted) rows.set(item.runId, item);
  return {
    items: changes.order.flatMap((runId) => {
      const item = rows.get(runId);
      return item ? [item] : [];
    }),
    total: changes.total,
    nextCursor: changes.nextCursor,
  };
}
