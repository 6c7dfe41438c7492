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
  /** The signed-in person who started the run; null for headless runs. */
  startedBy: { id: string; name: string } | null;
  decisions: Array<{
    turnDigest: string;
    approve: boolean;
    /** Who decided: the signed-in person's name, and their user id (null in headless runs). */
    actor: string;
    actorId: string | null;
    reason: string | null;
    outcome: string;
    decidedAt: string;
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
    startedBy: run.startedById ? { id: run.startedById, name: run.startedByName ?? "" } : null,
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
        actorId?: string | null;
        reason: string | null;
        outcome: string;
      };
      return {
        turnDigest: payload.turnDigest,
        approve: payload.approve,
        actor: payload.actor,
        actorId: payload.actorId ?? null,
        reason: payload.reason,
        outcome: payload.outcome,
        decidedAt: event.createdAt.toISOString(),
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
