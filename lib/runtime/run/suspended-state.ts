import { z } from "zod";
import { RuntimeError } from "../errors";
import {
  callOutcomeSchema,
  describeFirstIssue,
  pendingTurnSchema,
  planSchema,
  preflightedCallSchema,
  transcriptEntrySchema,
} from "./persisted-schemas";
import type { PendingTurn } from "./run-types";

/**
 * A waiting run's stored state cannot be decoded (`unreadable_state`,
 * docs/decisions.md#what-happens-to-a-decision-in-order).
 */
export class UnreadableStateError extends RuntimeError {
  static override readonly brand: string = "UnreadableStateError";
  declare readonly code: "unreadable_state";
  readonly runId: string;
  constructor(runId: string, detail: string) {
    super("unreadable_state", `The suspended state of run ${runId} cannot be decoded: ${detail}`);
    this.runId = runId;
  }
}

/**
 * Everything needed to continue a step from one of its segments: the step's
 * preflighted calls and plan, what has settled so far, and the transcript up
 * to and including this step's assistant message.
 */
const stepProgressSchema = z.object({
  stepIndex: z.number().int().min(0),
  calls: z.array(preflightedCallSchema),
  plan: planSchema,
  /** Index into `plan.segments` of the next segment to run. */
  nextSegment: z.number().int().min(0),
  completedWaves: z.number().int().min(0),
  /** Settled outcomes by batchIndex (JSON object keys are strings). */
  outcomes: z.record(z.string(), callOutcomeSchema),
  transcript: z.array(transcriptEntrySchema),
  /** Gates after the barrier that a decision approved with it (batchIndex → decision id): they run without waiting. */
  approvedGates: z.record(z.string(), z.string()).optional(),
  /** Calls whose arguments an approver changed (batchIndex → the arguments the model sent). */
  edits: z.record(z.string(), z.string()).optional(),
});
export type StepProgress = z.infer<typeof stepProgressSchema>;

/** Version of the persisted suspended state; bump it and keep an upgrade from each past version. */
export const SUSPENDED_STATE_VERSION = 2;

const suspendedStateSchema = stepProgressSchema.extend({
  schemaVersion: z.literal(SUSPENDED_STATE_VERSION),
  pending: pendingTurnSchema,
});

/** What a waiting run persists (docs/decisions.md): enough to resume in any process. */
export type SuspendedState = z.infer<typeof suspendedStateSchema>;

/**
 * Version 1 named a call's raw arguments `rawArguments` in `calls`; version 2
 * calls them `arguments`, as every other layer does. Anything else is left
 * for the schema to judge.
 */
function upgradeFromVersion1(stored: Record<string, unknown>): unknown {
  const calls = stored.calls;
  return {
    ...stored,
    schemaVersion: SUSPENDED_STATE_VERSION,
    calls: Array.isArray(calls)
      ? calls.map((call) => {
          if (call === null || typeof call !== "object" || !("rawArguments" in call)) return call;
          const { rawArguments, ...rest } = call as Record<string, unknown>;
          return { ...rest, arguments: rawArguments };
        })
      : calls,
  };
}

/**
 * Decodes a waiting run's stored state, or throws {@link UnreadableStateError}
 * naming what is wrong. Reads every past version. Also checks that the state
 * points at a barrier whose call is the first pending call, so a decoded
 * state is one we can resume.
 */
export function decodeSuspendedState(runId: string, stored: unknown): SuspendedState {
  if (stored === null || stored === undefined) throw new UnreadableStateError(runId, "no state is stored");
  const version =
    typeof stored === "object" ? (stored as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (version !== 1 && version !== SUSPENDED_STATE_VERSION) {
    throw new UnreadableStateError(
      runId,
      `schemaVersion ${JSON.stringify(version)} is not one this server reads`,
    );
  }
  const upgraded = version === 1 ? upgradeFromVersion1(stored as Record<string, unknown>) : stored;
  const parsed = suspendedStateSchema.safeParse(upgraded);
  if (!parsed.success) throw new UnreadableStateError(runId, describeFirstIssue(parsed.error));
  const state = parsed.data;
  const segment = state.plan.segments[state.nextSegment];
  if (segment?.kind !== "barrier" || state.pending.calls[0]?.batchIndex !== segment.batchIndex) {
    throw new UnreadableStateError(runId, "the next segment is not the pending barrier");
  }
  return state;
}

// Built once: zod compiles an object schema on its first parse, so a schema
// built per call would be compiled again for every run the inbox lists.
const pendingOfStateSchema = z.object({ stepIndex: z.number().int().min(0), pending: pendingTurnSchema });

/**
 * The pending turn of a waiting run's stored state, read without decoding the
 * rest of it (the inbox lists many runs and shows only this). Throws
 * {@link UnreadableStateError} as {@link decodeSuspendedState} would for a
 * state of an unknown version or without a readable pending turn.
 */
export function decodePendingOfState(
  runId: string,
  stored: { schemaVersion: unknown; stepIndex: unknown; pending: unknown },
): { stepIndex: number; pending: PendingTurn } {
  const { schemaVersion } = stored;
  if (schemaVersion !== 1 && schemaVersion !== SUSPENDED_STATE_VERSION) {
    throw new UnreadableStateError(
      runId,
      `schemaVersion ${JSON.stringify(schemaVersion)} is not one this server reads`,
    );
  }
  const parsed = pendingOfStateSchema.safeParse(stored);
  if (!parsed.success) throw new UnreadableStateError(runId, describeFirstIssue(parsed.error));
  return parsed.data;
}
