import type { RunRecord } from "../run/run-records";

/**
 * The rows of waiting runs this process read last for someone about to decide (a run page, its
 * stream opening, the stream's worker checks), so that a decision on one of them can be checked
 * against that row instead of reading the run again: one round trip fewer on the path a person waits
 * on (docs/decisions.md#what-happens-to-a-decision-in-order).
 *
 * A remembered row is only ever a proposal. The decision's one write is fenced on the row's version
 * (the store refuses it if the run changed since), and a decision that the remembered row would refuse,
 * or whose fenced write was refused, is checked again against a fresh read
 * (lib/runtime/coordinator/decide.ts). A row is handed out once; a read of the run that is not
 * waiting forgets it; the most recent {@link REMEMBERED_RUNS} are kept.
 */
export interface WaitingRunMemory {
  /** Keeps `run` if it is waiting, or forgets the run if it is not. */
  remember(run: RunRecord): void;
  /** The run's remembered row, forgotten as it is handed out, or undefined. */
  take(runId: string): RunRecord | undefined;
}

/** Enough for every run a few hundred people have open at once; a row holds the run's state. */
export const REMEMBERED_RUNS = 256;

export function createWaitingRunMemory(capacity = REMEMBERED_RUNS): WaitingRunMemory {
  // A Map iterates in insertion order: re-inserting a run makes it the most recent.
  const rows = new Map<string, RunRecord>();
  return {
    remember(run) {
      rows.delete(run.id);
      if (run.status !== "WAITING_FOR_APPROVAL") return;
      rows.set(run.id, run);
      if (rows.size > capacity) {
        const oldest = rows.keys().next().value;
        if (oldest !== undefined) rows.delete(oldest);
      }
    },
    take(runId) {
      const row = rows.get(runId);
      rows.delete(runId);
      return row;
    },
  };
}
