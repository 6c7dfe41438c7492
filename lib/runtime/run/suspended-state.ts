import { z } from "zod";
import { RuntimeError } from "../errors";
import { EFFECTS, RESOURCE_CLASSES } from "../types";
import { SUSPENDED_STATE_VERSION, type SuspendedState } from "./run-types";

/** A waiting run's stored state cannot be decoded (SPEC §5 `unreadable_state`). */
export class UnreadableStateError extends RuntimeError {
  static override readonly brand: string = "UnreadableStateError";
  declare readonly code: "unreadable_state";
  readonly runId: string;
  constructor(runId: string, detail: string) {
    super("unreadable_state", `The suspended state of run ${runId} cannot be decoded: ${detail}`);
    this.runId = runId;
  }
}

const problemSchema = z.object({
  batchIndex: z.number().int().nullable(),
  code: z.string(),
  message: z.string(),
});

const errorSchema = z.object({ code: z.string(), message: z.string() });

const preflightedCallSchema = z.object({
  batchIndex: z.number().int().min(0),
  id: z.string(),
  name: z.string(),
  rawArguments: z.string(),
  parsedArguments: z.record(z.string(), z.unknown()).nullable(),
  resourceClass: z.enum(RESOURCE_CLASSES).nullable(),
  effect: z.enum(EFFECTS),
  isGated: z.boolean(),
  problem: problemSchema.nullable(),
});

const segmentSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("wave"), batchIndexes: z.array(z.number().int().min(0)) }),
  z.object({ kind: z.literal("barrier"), batchIndex: z.number().int().min(0) }),
]);

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  batchIndex: z.number().int().min(0),
});

const transcriptEntrySchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({ role: z.literal("assistant"), text: z.string().nullable(), calls: z.array(toolCallSchema) }),
  z.object({
    role: z.literal("tool"),
    callId: z.string(),
    name: z.string(),
    batchIndex: z.number().int(),
    status: z.string(),
    result: z.unknown(),
    error: errorSchema.nullable(),
  }),
  z.object({ role: z.literal("repair_notice"), text: z.string() }),
]);

const suspendedStateSchema = z.object({
  schemaVersion: z.literal(SUSPENDED_STATE_VERSION),
  stepIndex: z.number().int().min(0),
  calls: z.array(preflightedCallSchema),
  plan: z.object({
    kind: z.enum(["execute", "repair"]),
    segments: z.array(segmentSchema),
    problems: z.array(problemSchema),
  }),
  nextSegment: z.number().int().min(0),
  completedWaves: z.number().int().min(0),
  outcomes: z.record(
    z.string(),
    z.object({ status: z.string(), result: z.unknown(), error: errorSchema.nullable() }),
  ),
  transcript: z.array(transcriptEntrySchema),
  pending: z.object({
    turnDigest: z.string().regex(/^[0-9a-f]{64}$/),
    calls: z.array(toolCallSchema).min(1),
  }),
});

/**
 * Decodes a waiting run's stored state, or throws {@link UnreadableStateError}
 * naming what is wrong. Also checks that the state points at a barrier whose
 * call is the first pending call, so a decoded state is one we can resume.
 */
export function decodeSuspendedState(runId: string, stored: unknown): SuspendedState {
  if (stored === null || stored === undefined) throw new UnreadableStateError(runId, "no state is stored");
  const parsed = suspendedStateSchema.safeParse(stored);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new UnreadableStateError(
      runId,
      `${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}`,
    );
  }
  const state = parsed.data as SuspendedState;
  const segment = state.plan.segments[state.nextSegment];
  if (segment?.kind !== "barrier" || state.pending.calls[0]?.batchIndex !== segment.batchIndex) {
    throw new UnreadableStateError(runId, "the next segment is not the pending barrier");
  }
  return state;
}
