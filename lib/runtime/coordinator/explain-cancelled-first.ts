import type { RunEventType } from "../events/run-events";
import { isTerminalStatus } from "../run/is-terminal-status";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { CancelledFirstError, NotWaitingError } from "./decision-errors";

/**
 * A decision refused because the run is not waiting, when a cancel took the run's pending turn
 * first (the cancel's claim, or its worker's resumption, is the latest event that took up or gave
 * the run a turn): it is told the run was cancelled, with the run's status read after the events.
 * Read at the lost claim alone, the run is RUNNING while the cancel ends it, which is neither what
 * happened nor where it stays. Other refusals pass through. Only that latest event is read, not
 * the history: every loser of a race of approvers comes here, however long the run.
 */
export async function explainCancelledFirst(
  error: unknown,
  runId: string,
  dependencies: CoordinatorDependencies,
): Promise<unknown> {
  if (!NotWaitingError.isInstance(error) || !["RUNNING", "CANCELLED"].includes(error.status)) return error;
  const { store } = dependencies;
  const last = await store.readLatestEvent(runId, TURN_TAKEN_OR_GIVEN);
  let scope: "turn" | "run" | null;
  if (last?.type === "run_claimed" && last.payload.purpose === "cancel") scope = null;
  else if (last?.type === "run_resumed" && last.payload.action === "cancel_run") scope = "run";
  else if (last?.type === "run_resumed" && last.payload.action === "cancel_turn") scope = "turn";
  else return error;
  const status = (await store.getRun(runId))?.status ?? error.status;
  return new CancelledFirstError(runId, status, scope, isTerminalStatus(status));
}

/** The events that take up a run's pending turn, or give the run another one. */
const TURN_TAKEN_OR_GIVEN: readonly RunEventType[] = [
  "awaiting_approval",
  "run_claimed",
  "run_released",
  "run_resumed",
  "step_planned",
];
