import "server-only";
import { corruptWaitingState } from "@/db/repositories/corrupt-waiting-state";
import { getDatabase } from "@/lib/server/database";

export {
  createFaultRegistry,
  type FaultRegistry,
  withInjectedFaults,
} from "@/lib/runtime/testing/faulty-run-store";

export const FAULT_INJECTION_OFF = "Fault injection is off (PLAYGROUND_FAULTS=1 enables it).";

export function isFaultInjectionEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PLAYGROUND_FAULTS === "1";
}

/** Makes a waiting run's saved state undecodable, so the UI's `unreadable_state` (422) can be seen. */
export async function makeWaitingStateUnreadable(runId: string): Promise<boolean> {
  return corruptWaitingState((await getDatabase()).db, runId);
}
