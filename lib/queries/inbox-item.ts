import type { PendingTurn } from "@/lib/runtime";

/** One row of the approval inbox: a run waiting for a decision. */
export interface InboxItem {
  runId: string;
  name: string;
  /** ISO time the run started waiting (null only for rows written before it was recorded). */
  waitingSince: string | null;
  stepIndex: number | null;
  pending: PendingTurn | null;
  /** Why the pending turn cannot be shown (its state does not decode), else null. */
  unreadable: string | null;
}

/** One page of the inbox: newest waits first, how many wait in all, and where the next page starts. */
export interface InboxPage {
  items: InboxItem[];
  total: number;
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}
