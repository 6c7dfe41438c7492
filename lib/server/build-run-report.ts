import "server-only";
import type { RunDetail } from "@/db/repositories/run-queries";
import { decodeSuspendedState, type PendingTurn, type RunError } from "@/lib/runtime";

/** The run report of SPEC §8: a public contract read by scripts. */
export interface RunReport {
  runId: string;
  name: string;
  status: string;
  error: RunError | null;
  modelCalls: number;
  pending: PendingTurn | null;
  steps: Array<{
    index: number;
    text: string | null;
    plan: unknown;
    calls: Array<{
      batchIndex: number;
      id: string;
      name: string;
      arguments: string;
      status: string;
      startSeq: number | null;
      settleSeq: number | null;
      result: unknown;
      error: RunError | null;
    }>;
    metrics: unknown;
  }>;
  decisions: Array<{
    turnDigest: string;
    approve: boolean;
    actor: string;
    reason: string | null;
    outcome: string;
  }>;
}

/** Builds the report of a run from what the database holds. */
export function buildRunReport(detail: RunDetail): RunReport {
  const { run } = detail;
  return {
    runId: run.id,
    name: run.name,
    status: run.status,
    error: run.error ?? null,
    modelCalls: run.modelCalls,
    pending: run.status === "WAITING_FOR_APPROVAL" ? readPending(run.id, run.state) : null,
    steps: detail.steps.map((step) => ({
      index: step.index,
      text: step.text,
      plan: step.plan,
      calls: detail.calls
        .filter((call) => call.stepIndex === step.index)
        .map((call) => ({
          batchIndex: call.batchIndex,
          id: call.callId,
          name: call.name,
          arguments: call.rawArguments,
          status: call.status,
          startSeq: call.startSeq,
          settleSeq: call.settleSeq,
          result: call.result ?? null,
          error: call.error ?? null,
        })),
      metrics: step.metrics,
    })),
    decisions: detail.decisionEvents.map((event) => {
      const payload = event.payload as {
        turnDigest: string;
        approve: boolean;
        actor: string;
        reason: string | null;
        outcome: string;
      };
      return {
        turnDigest: payload.turnDigest,
        approve: payload.approve,
        actor: payload.actor,
        reason: payload.reason,
        outcome: payload.outcome,
      };
    }),
  };
}

function readPending(runId: string, state: unknown): PendingTurn | null {
  try {
    return decodeSuspendedState(runId, state).pending;
  } catch {
    return null;
  }
}
