import type { Limits, Plan } from "../types";
import type { StepMetrics } from "./run-types";

/**
 * The metrics of a step (docs/run-report.md) from its plan and how far it got. Derived,
 * never accumulated, so a resumed step reports the same numbers as one that
 * ran straight through.
 */
export function computeStepMetrics(
  plan: Plan,
  originalSize: number,
  limits: Limits,
  progress: { completedWaves: number; invalidatedCount: number },
): StepMetrics {
  const waves = plan.segments.flatMap((segment) => (segment.kind === "wave" ? [segment.batchIndexes] : []));
  const barriers = plan.segments.flatMap((segment) =>
    segment.kind === "barrier" ? [segment.batchIndex] : [],
  );
  const firstBarrier = barriers.length > 0 ? Math.min(...barriers) : null;
  return {
    originalSize,
    cap: limits.maxParallelToolCalls,
    waveCount: waves.length,
    waveBoundaries: waves.map((indexes) => [indexes[0] ?? 0, indexes[indexes.length - 1] ?? 0]),
    completedWaves: progress.completedWaves,
    approvalBarriers: barriers.length,
    retainedCount: firstBarrier === null ? 0 : originalSize - firstBarrier - 1,
    invalidatedCount: progress.invalidatedCount,
    repairReason: plan.kind === "repair" ? summarizeRepair(plan) : null,
  };
}

/** The batch-level problem's code when there is one, else the first call's. */
function summarizeRepair(plan: Plan): string {
  const batchProblem = plan.problems.find((problem) => problem.batchIndex === null);
  return (batchProblem ?? plan.problems[0])?.code ?? "repair";
}
