import type { PendingTurn } from "@/lib/runtime/browser";

/** One row of the approval inbox: a run waiting for a decision. */
export interface InboxItem {
  runId: string;
  name: string;
  /** Who started the run (null for headless runs). */
  startedBy: string | null;
  /** ISO time the run started waiting (null only for rows written before it was recorded). */
  waitingSince: string | null;
  stepIndex: number | null;
  pending: PendingTurn | null;
  /**
   * The policy rule that gated the barrier (docs/policies.md#how-a-call-is-decided), else null:
   * the call stays the rule's, so approving it grants nothing for later calls.
   */
  barrierRule: string | null;
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

/** What the inbox is narrowed to, as the address and the API spell it. */
export interface InboxFilterParams {
  /** Part of the run's name, or the start of its id. */
  q?: string;
  /** A pending call's tool. */
  tool?: string;
  /** Part of the name of who started the run. */
  startedBy?: string;
  /** `oldest`: the longest wait first; newest first otherwise. */
  order?: "newest" | "oldest";
  /** Archived runs: left out unless `include` or `only` (docs/housekeeping.md). */
  archived?: "hide" | "include" | "only";
}

/** The filter as query parameters (empty ones left out; newest first is the default). */
export function inboxSearchParams(filter: InboxFilterParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ["q", "tool", "startedBy"] as const) {
    const value = filter[key]?.trim();
    if (value) params.set(key, value);
  }
  if (filter.order === "oldest") params.set("order", "oldest");
  if (filter.archived === "include" || filter.archived === "only") params.set("archived", filter.archived);
  return params;
}
