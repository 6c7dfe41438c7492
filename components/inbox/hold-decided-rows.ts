import type { InboxItem } from "@/lib/wire/inbox-item";

/**
 * A row decided from this page: where it was and what it showed when the
 * decision was sent (the live list may move it before the answer comes), and
 * what was decided; `confirmed` once the decision took effect.
 */
export interface HeldRow {
  item: InboxItem;
  index: number;
  decided: { approve: boolean; scope?: "gate" | "turn" };
  confirmed: boolean;
  /** When the row may move to where the live list puts it (ms since the epoch). */
  until: number;
}

/** A row as the inbox shows it: the live item, or a decided one held in place with its outcome. */
export interface ShownRow {
  item: InboxItem;
  /** Set while the row is held where it was decided. */
  outcome: string | null;
  /** True when the run no longer waits at the turn shown (nothing to decide on this row). */
  isSettled: boolean;
}

/**
 * The rows in the order the inbox shows them: the live order, except that a
 * row decided a moment ago stays where it was, with its outcome, whether the
 * run has left the list or come back waiting on its next gate elsewhere.
 * Keyboard decisions then act on what the person saw, never on a row that
 * slid into its place.
 */
export function holdDecidedRows(
  items: readonly InboxItem[],
  held: readonly HeldRow[],
  now: number,
): ShownRow[] {
  const holding = held.filter((row) => row.until > now).sort((a, b) => a.index - b.index);
  const heldIds = new Set(holding.map((row) => row.item.runId));
  const shown: ShownRow[] = items
    .filter((item) => !heldIds.has(item.runId))
    .map((item) => ({ item, outcome: null, isSettled: false }));
  for (const row of holding) {
    const listed = items.find((item) => item.runId === row.item.runId);
    // Until the live list catches up, it may still show the turn just decided: that turn is over, so
    // the row offers nothing to decide (a key pressed now would only be refused as stale).
    const isCaughtUp = !row.confirmed || listed?.pending?.turnDigest !== row.item.pending?.turnDigest;
    const current = isCaughtUp ? listed : undefined;
    const outcome = row.confirmed ? describeOutcome(row.decided, row.item, current) : null;
    const next: ShownRow = current
      ? { item: current, outcome, isSettled: false }
      : { item: row.item, outcome, isSettled: true };
    shown.splice(Math.min(row.index, shown.length), 0, next);
  }
  return shown;
}

/** What a decision did, in the words the held row shows. */
export function describeOutcome(
  decided: { approve: boolean; scope?: "gate" | "turn" },
  item: InboxItem,
  current: InboxItem | undefined,
): string {
  if (!decided.approve) return "Denied: the model gets your reply";
  // A turn that needs several approvers goes on waiting until enough have approved (docs/policies.md#quorum).
  const quorum = item.pending?.quorum ?? 1;
  const counted = (item.pending?.approvals?.length ?? 0) + 1;
  if (counted < quorum) {
    return `Approved: ${counted} of ${quorum} approvals, waiting for ${quorum - counted} more`;
  }
  const gates = item.pending?.gates ?? [];
  if (decided.scope === "turn" || gates.length <= 1) {
    return current ? "Approved: now waiting on its next turn" : "Approved: the run goes on";
  }
  const stillWaiting = current?.pending?.gates ?? [];
  return stillWaiting.length > 0 && current?.stepIndex === item.stepIndex
    ? `Approved gate 1 of ${gates.length} — now waiting on gate ${gates.length - stillWaiting.length + 1}`
    : `Approved gate 1 of ${gates.length}`;
}
