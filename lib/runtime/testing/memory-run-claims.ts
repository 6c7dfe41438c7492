/** The in-memory store's claims and leases seam. */
import type { RunClaims } from "../run/run-store";
import { copy, type MemoryRunLog } from "./memory-run-log";

export function createMemoryRunClaims(log: MemoryRunLog): RunClaims {
  const { runs, now } = log;
  return {
    async claimWaitingRun(runId, claimToken, leaseMs, purpose) {
      const run = runs.get(runId);
      if (!run || log.statusOf(run) !== "WAITING_FOR_APPROVAL") return null;
      log.claim(run, claimToken, leaseMs, purpose);
      return log.recordOf(run);
    },

    async releaseRun(runId, claimToken, state, event) {
      const run = runs.get(runId);
      if (!run || run.claimToken !== claimToken || log.statusOf(run) !== "RUNNING") return false;
      run.state = copy(state);
      run.claimToken = null;
      run.leaseExpiresAt = null;
      log.append(run, event);
      return true;
    },

    async renewLease(runId, claimToken, leaseMs) {
      const run = runs.get(runId);
      if (!run || run.claimToken !== claimToken || log.statusOf(run) !== "RUNNING") return false;
      run.leaseExpiresAt = now() + leaseMs;
      return true;
    },

    async claimExpiredRuns({ leaseMs, limit, runId }) {
      const expired = [...runs.values()]
        .filter((run) => log.isExpired(run) && (runId === undefined || run.id === runId))
        .sort((a, b) => (a.leaseExpiresAt ?? 0) - (b.leaseExpiresAt ?? 0))
        .slice(0, limit);
      return expired.map((run) => {
        const claimToken = crypto.randomUUID();
        run.claimToken = claimToken;
        run.leaseExpiresAt = now() + leaseMs;
        return { run: log.recordOf(run), claimToken };
      });
    },
  };
}
