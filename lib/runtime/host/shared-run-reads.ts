import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";

/**
 * The store, with concurrent reads of one run sharing one query: a burst of
 * decisions on a run reads it once. A read that starts while another is under
 * way gets that one's answer, a moment older than a fresh read would be;
 * every caller treats a read as a snapshot the claim re-checks, and nothing
 * is kept once it has answered.
 */
export function withSharedRunReads(store: RunStore): RunStore {
  const reading = new Map<string, Promise<RunRecord | null>>();
  return {
    ...store,
    getRun(runId) {
      let read = reading.get(runId);
      if (!read) {
        read = store.getRun(runId);
        reading.set(runId, read);
        const forget = () => reading.delete(runId);
        read.then(forget, forget);
      }
      return read;
    },
  };
}
