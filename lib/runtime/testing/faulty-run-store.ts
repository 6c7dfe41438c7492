/**
 * Store failures on demand (docs/architecture.md#where-things-go, fault injection), for tests and for the
 * demos of a server started with PLAYGROUND_FAULTS=1. A decorator over any
 * `RunStore`: the stores themselves know nothing of it.
 */
import type { RunStore } from "../run/run-store";

export type FaultTarget = "approvals" | "steps";

/** How many of the next stores of each kind must fail. */
export interface FaultRegistry {
  arm(target: FaultTarget, failNext: number): void;
  armed(): Record<FaultTarget, number>;
  /** True when the next store of `target` must fail (and consumes one armed failure). */
  take(target: FaultTarget): boolean;
}

export function createFaultRegistry(): FaultRegistry {
  const armed: Record<FaultTarget, number> = { approvals: 0, steps: 0 };
  return {
    arm: (target, failNext) => {
      armed[target] = failNext;
    },
    armed: () => ({ ...armed }),
    take: (target) => {
      if (armed[target] <= 0) return false;
      armed[target] -= 1;
      return true;
    },
  };
}

/**
 * The store, failing as armed: the next armed approval records are refused
 * (the audit is unavailable), and so are starts of calls that carry
 * automatic approvals; the next armed writes of call outcomes fail. Nothing
 * of a refused write is stored.
 */
export function withInjectedFaults(store: RunStore, faults: FaultRegistry): RunStore {
  return {
    ...store,
    async recordApproval(record, announce) {
      return faults.take("approvals") ? false : store.recordApproval(record, announce);
    },
    async recordPartialApproval(...args) {
      return faults.take("approvals") ? false : store.recordPartialApproval(...args);
    },
    async claimAndRecordDecision(...args) {
      // An armed audit failure is left for `recordApproval`: the decision goes the long way, as it
      // does when a real audit refuses the one-write claim.
      return faults.armed().approvals > 0 ? false : store.claimAndRecordDecision(...args);
    },
    async startCalls(runId, claimToken, stepIndex, batchIndexes, options) {
      if (options.approvals?.length && faults.take("approvals"))
        throw new Error("injected fault: the audit could not store the automatic approvals");
      return store.startCalls(runId, claimToken, stepIndex, batchIndexes, options);
    },
    async settleCalls(...args) {
      if (faults.take("steps")) throw new Error("injected fault: the step record could not be stored");
      return store.settleCalls(...args);
    },
  };
}

/** A store wrapper that injects the armed faults first, then applies a test's own decorator, if any. */
export function faultsThen(
  faults: FaultRegistry,
  wrapStore?: (store: RunStore) => RunStore,
): (store: RunStore) => RunStore {
  return (inner) => {
    const faulty = withInjectedFaults(inner, faults);
    return wrapStore ? wrapStore(faulty) : faulty;
  };
}
