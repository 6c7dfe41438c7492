import { RuntimeError } from "../errors";
import type { PlanProblem } from "../types";

/** The worker no longer holds the run's claim: another worker or a decision took it over. */
export class LostClaimError extends RuntimeError {
  static override readonly brand: string = "LostClaimError";
  declare readonly code: "lost_claim";
  readonly runId: string;
  constructor(runId: string) {
    super("lost_claim", `Run ${runId} is no longer held by this worker.`);
    this.runId = runId;
  }
}

/** The model kept sending batches that had to be repaired (SPEC §2 `maxRepairAttempts`). */
export class RepairExhaustedError extends RuntimeError {
  static override readonly brand: string = "RepairExhaustedError";
  declare readonly code: "repair_exhausted";
  readonly problems: PlanProblem[];
  constructor(attempts: number, problems: PlanProblem[]) {
    super(
      "repair_exhausted",
      `The model's batch still needed repair after ${attempts} repair attempt${attempts === 1 ? "" : "s"}: ${problems
        .map((problem) => problem.message)
        .join("; ")}`,
    );
    this.problems = problems;
  }
}
