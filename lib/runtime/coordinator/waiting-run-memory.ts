import type { RunRecord } from "../run/run-records";

/**
 * The rows of waiting runs this process has just read (a run page, its stream opening and the stream's
 * check on the run every second, an agent's poll), so that a decision on one of them can be checked
 * against that row instead of reading the run again: one round trip fewer on the path a person waits
 * on (docs/decisions.md#what-happens-to-a-decision-in-order).
 *
 * A remembered row is only ever a proposal. The decision's writes are fenced on the row's version
 * (the store refuses them if the run changed since), and a decision that the remembered row would
 * refuse, or whose fenced write was refused, is checked again against a fresh read
 * (lib/runtime/coordinator/decide.ts). A row is handed out once and for {@link REMEMBERED_FOR_MS}
 * after it was read; a read of the run that is not waiting forgets it; at most
 * {@link REMEMBERED_RUNS} are kept.
 */
export interface WaitingRunMemory {
  /** Keeps `run` if it is waiting, or forgets the run if it is not. */
  remember(run: RunRecord): void;
  /** The run's row if it was read within the last {@link REMEMBERED_FOR_MS}, forgotten as it is handed out. */
  take(runId: string): RunRecord | undefined;
}

/** Enough for every run a few hundred people have open at once; a row holds the run's state. */
export const REMEMBERED_RUNS = 256;
/** An open page's stream reads its run every second; a row older than this is read again. */
export const REMEMBERED_FOR_MS = 10_000;

export function createWaitingRunMemory(
  options: { capacity?: number; forMs?: number; now?: () => number } = {},
): WaitingRunMemory {
  const { capacity = REMEMBERED_RUNS, forMs = REMEMBERED_FOR_MS, now = Date.now } = options;
  // A Map iterates in insertion order, and a run read again is inserted again: oldest first.
  const rows = new Map<string, { run: RunRecord; readAt: number }>();
  const forgetOld = (at: number) => {
    for (const [runId, { readAt }] of rows) {
      if (rows.size <= capacity && at - readAt <= forMs) break;
      rows.delete(runId);
    }
  };
  return {
    remember(run) {
      const at = now();
      rows.delete(run.id);
      if (run.status === "WAITING_FOR_APPROVAL") rows.set(run.id, { run, readAt: at });
      forgetOld(at);
    },
    take(runId) {
      const remembered = rows.get(runId);
      rows.delete(runId);
      return remembered && now() - remembered.readAt <= forMs ? remembered.run : undefined;
    },
  };
}
