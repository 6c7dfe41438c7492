/**
 * A `RunStore` in memory, for tests and benchmarks of the runtime alone. It
 * keeps the database store's promises (the contract suite checks both): each
 * method's changes and its event happen together or not at all, seqs are
 * gap-free, claim tokens fence every write of a holder, and what is stored is
 * a JSON copy, so a caller mutating what it passed or read changes nothing.
 *
 * It is the three seams over one log of appended events (`memory-run-log.ts`):
 * the state a run's events announce is read from their fold, never kept twice.
 */
import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";
import type { RunError } from "../run/run-types";
import { createMemoryApprovalStore } from "./memory-approval-store";
import { createMemoryRunClaims } from "./memory-run-claims";
import { createMemoryRunEventLog } from "./memory-run-event-log";
import { copy, createMemoryRunLog } from "./memory-run-log";

/** The in-memory store, with what a test may want to look at beyond the port. */
export interface MemoryRunStore extends RunStore {
  /** The run's workspace files as the run was created with them. */
  initialFiles(runId: string): Record<string, string>;
  /** The whole stored row, as a test inspects a database row: the record plus claim, lease and error. */
  inspect(runId: string): RunRecord & {
    claimToken: string | null;
    leaseExpiresAt: number | null;
    error: RunError | null;
  };
  /** Replaces a run's stored state, as a bad deploy or a hand edit would (fault tests). */
  overwriteState(runId: string, state: unknown): void;
}

export function createMemoryRunStore(options: { now?: () => number } = {}): MemoryRunStore {
  const log = createMemoryRunLog(options.now ?? Date.now);
  return {
    ...createMemoryRunEventLog(log),
    ...createMemoryRunClaims(log),
    ...createMemoryApprovalStore(log),

    initialFiles(runId) {
      return Object.fromEntries(log.existing(runId).files);
    },

    inspect(runId) {
      const run = log.existing(runId);
      return copy({
        ...log.recordOf(run),
        claimToken: run.claimToken,
        leaseExpiresAt: run.leaseExpiresAt,
        error: run.view.error,
      });
    },

    overwriteState(runId, state) {
      log.existing(runId).state = copy(state);
    },
  };
}
