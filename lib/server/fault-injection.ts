import "server-only";
import { and, eq } from "drizzle-orm";
import { getDatabase } from "@/db/client";
import type { StoreFaults } from "@/db/repositories/run-repository";
import { runs } from "@/db/schema";

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

/**
 * Overwrites a waiting run's suspended state with one no decoder accepts, the
 * way a bad deploy or a hand edit would, so the UI's `unreadable_state`
 * answer can be shown. Only waiting runs; returns whether one was changed.
 */
export async function makeWaitingStateUnreadable(runId: string): Promise<boolean> {
  const { db } = await getDatabase();
  const rows = await db
    .update(runs)
    .set({ state: { schemaVersion: 999, corrupted: "by fault injection" } })
    .where(and(eq(runs.id, runId), eq(runs.status, "WAITING_FOR_APPROVAL")))
    .returning({ id: runs.id });
  return rows.length > 0;
}
