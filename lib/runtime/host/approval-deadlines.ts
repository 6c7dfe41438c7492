import { readPendingTurn } from "../coordinator/claim-waiting-run";
import type { CoordinatorDependencies } from "../coordinator/coordinator-dependencies";
import { expireWait } from "../coordinator/expire-wait";
import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";
import type { RunStatus } from "../run/run-types";
import type { Scenario } from "../scenario/scenario-schema";
import { hasApprovalTimeouts } from "./stored-scenarios";

export interface ApprovalDeadlineDependencies {
  store: RunStore;
  coordinator: CoordinatorDependencies;
  now(): number;
  /** Whether a timer is set for each wait left with a deadline (the host's `deadlineTimers`). */
  timers: boolean;
  scenarios: { known(runId: string): Scenario | undefined; scenarioOf(run: RunRecord): Scenario };
}

/** A host's approval deadlines: the timers of the waits it leaves, and the sweep of everyone's. */
export function createApprovalDeadlines(dependencies: ApprovalDeadlineDependencies) {
  const { store, coordinator, now, scenarios } = dependencies;

  /**
   * Announces waits in their last fifth and expires waits past their
   * deadline (at most `limit` of each), wherever they were left. Resolves
   * with the runs it expired; each goes on in `settled`.
   */
  async function sweepApprovalDeadlines(
    sweep: { limit?: number } = {},
  ): Promise<Array<{ runId: string; settled: Promise<RunStatus> }>> {
    const limit = sweep.limit ?? 20;
    await store.announceExpiringWaits(limit);
    const expired: Array<{ runId: string; settled: Promise<RunStatus> }> = [];
    for (const runId of await store.listExpiredWaits(limit)) {
      const expiry = await expireWait(runId, coordinator);
      if (expiry) expired.push({ runId, settled: watchDeadline(runId, expiry.settled) });
    }
    return expired;
  }

  /**
   * Passes a run's `settled` through; when the run is left waiting with a
   * deadline, sets timers to announce the wait's last fifth and to expire it
   * on time (unref'd: they never keep a process alive).
   */
  function watchDeadline(runId: string, settled: Promise<RunStatus>): Promise<RunStatus> {
    if (!dependencies.timers) return settled;
    void settled.then(
      async (status) => {
        if (status !== "WAITING_FOR_APPROVAL") return;
        const known = scenarios.known(runId);
        if (known && !hasApprovalTimeouts(known)) return;
        const run = await store.getRun(runId);
        if (!run || !hasApprovalTimeouts(scenarios.scenarioOf(run))) return;
        const expiresAt = readPendingTurn(run)?.expiresAt;
        if (!expiresAt) return;
        const left = Date.parse(expiresAt) - now();
        const at = (delay: number, work: () => Promise<unknown>) => {
          const timer = setTimeout(() => void work().catch(() => {}), Math.max(0, delay));
          (timer as { unref?: () => void }).unref?.();
        };
        at(left * 0.8, () => store.announceExpiringWaits(20));
        at(left + 5, async () => {
          const expiry = await expireWait(runId, coordinator);
          if (expiry) await watchDeadline(runId, expiry.settled);
        });
      },
      () => {},
    );
    return settled;
  }

  return { sweepApprovalDeadlines, watchDeadline };
}
