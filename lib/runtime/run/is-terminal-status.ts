import type { RunStatus } from "./run-types";

const TERMINAL: ReadonlySet<string> = new Set<RunStatus>(["COMPLETED", "FAILED", "CANCELLED"]);

/** Whether a run has ended: nothing can follow its `run_finished`. */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL.has(status);
}
