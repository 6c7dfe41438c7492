import "server-only";
import { getDatabase } from "@/db/client";
import { corruptWaitingState } from "@/db/repositories/corrupt-waiting-state";
import type { StoreFaults } from "@/db/repositories/run-repository";

/**
 * Armed store failures for tests and demos (SPEC §5). Exists only when the
 * server runs with PLAYGROUND_FAULTS=1; otherwise nothing can be injected.
 */
export interface FaultRegistry extends StoreFaults {
  arm(target: "approvals" | "steps", failNext: number): void;
  armed(): { approvals: number; steps: number };
}

export const FAULT_INJECTION_OFF = "Fault injection is off (PLAYGROUND_FAULTS=1 enables it).";

export function isFaultInjectionEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PLAYGROUND_FAULTS === "1";
}

export function createFaultRegistry(): FaultRegistry {
  const armed = { approvals: 0, steps: 0 };
  const take = (target: keyof typeof armed) => {
    if (armed[target] <= 0) return false;
    armed[target] -= 1;
    return true;
  };
  return {
    arm: (target, failNext) => {
      armed[target] = failNext;
    },
    armed: () => ({ ...armed }),
    takeApprovalFault: () => take("approvals"),
    takeStepFault: () => take("steps"),
  };
}

/** Makes a waiting run's saved state undecodable, so the UI's `unreadable_state` (422) can be seen. */
export async function makeWaitingStateUnreadable(runId: string): Promise<boolean> {
  return corruptWaitingState((await getDatabase()).db, runId);
}
