/**
 * The run event catalogue: every event a run can emit, with its payload's
 * schema and version. The event log alone tells a run's story (docs/architecture.md#events): the
 * live view and the report are folds of it, the SSE stream carries it, and
 * stores write it only through their typed `appendEvent`.
 *
 * Changing a payload: add the new shape as the next version, bump
 * `RUN_EVENT_VERSIONS`, and keep an upgrade from the old version in
 * `UPGRADES`, so every row ever written still decodes.
 */
import { z } from "zod";
import { RuntimeError } from "../errors";
import {
  callOutcomeSchema,
  callStatusSchema,
  completionRecordSchema,
  describeFirstIssue,
  limitsSchema,
  pendingTurnSchema,
  planSchema,
  policyDecisionSchema,
  runErrorSchema,
  shadowRecordSchema,
  stepMetricsSchema,
} from "../run/persisted-schemas";
import type { NewStep } from "../run/run-records";
import type { CallOutcome } from "../run/run-types";
import type { SuspendedState } from "../run/suspended-state";
import { toolAllowanceSchema } from "../run/tool-allowances";
import { RESOURCE_CLASSES } from "../types";

const stepIndex = z.number().int().min(0);
const batchIndex = z.number().int().min(0);

/** The payload schema of every event type, at its current version. */
const payloadSchemas = {
  /** The run was created (always its first event). */
  run_started: z.object({
    name: z.string(),
    limits: limitsSchema,
    startedBy: z.object({ id: z.string(), name: z.string() }).nullable(),
    /** The operator's MCP servers whose tools the run may use (none before version 2). */
    mcpServers: z.array(z.string()),
    /** The run this one was forked from and the step (1-based) it starts again at; null for other runs (and before version 3). */
    forkedFrom: z.object({ runId: z.string(), step: z.number().int().min(1) }).nullable(),
  }),
  /** A completion was planned: its calls, plan and planned metrics. `modelCalls` counts completions so far. */
  step_planned: z.object({
    stepIndex,
    modelCalls: z.number().int().min(0),
    /** The completion's latency, usage and the preamble the model read (null before version 4). */
    completion: completionRecordSchema.nullable(),
    text: z.string().nullable(),
    plan: planSchema,
    metrics: stepMetricsSchema,
    calls: z.array(
      z.object({
        batchIndex,
        id: z.string(),
        name: z.string(),
        arguments: z.string(),
        resourceClass: z.enum(RESOURCE_CLASSES).nullable(),
        isGated: z.boolean(),
        status: callStatusSchema,
        error: runErrorSchema.nullable(),
        /** The grant that let the call through without a decision ("always allow"); null otherwise. */
        allowedBy: toolAllowanceSchema.nullable(),
        /**
         * The fingerprint of its tool's definition when planned, for an MCP server's tool; null for
         * the playground's own (and before version 5). A worker that takes the run over sends the
         * call only if the tool is still defined this way.
         */
        toolFingerprint: z.string().nullable(),
        /**
         * The policy rule that decided the call (docs/policies.md#the-audit), whether the tool's
         * declaration alone would have gated it, and what a shadow policy would have done; absent
         * when no policy was published.
         */
        policy: policyDecisionSchema.optional(),
        gatedByDeclaration: z.boolean().optional(),
        shadow: shadowRecordSchema.optional(),
      }),
    ),
  }),
  wave_started: z.object({ stepIndex, batchIndexes: z.array(batchIndex) }),
  call_started: z.object({ stepIndex, batchIndex }),
  call_settled: callOutcomeSchema.extend({ stepIndex, batchIndex }),
  /** A running call said how far it is (an MCP server's progress notifications), at most twice a second. */
  call_progress: z.object({
    stepIndex,
    batchIndex,
    progress: z.number(),
    total: z.number().nullable(),
    message: z.string().nullable(),
  }),
  /** Never-started calls settled at once (`invalidated`, or `denied` for a denied barrier). */
  calls_invalidated: z.object({
    stepIndex,
    reason: z.string(),
    calls: z.array(z.object({ batchIndex, status: callStatusSchema, error: runErrorSchema.nullable() })),
  }),
  /** `runCancelled`: a cancel of the whole run ended the step, and the run's own end follows. */
  step_finished: z.object({ stepIndex, metrics: stepMetricsSchema, runCancelled: z.boolean().optional() }),
  /** The run suspended at a barrier; `calls` is the pending turn the digest covers. */
  awaiting_approval: pendingTurnSchema.extend({ stepIndex }),
  /** A decision or cancellation took the waiting run (WAITING_FOR_APPROVAL → RUNNING). */
  run_claimed: z.object({
    stepIndex,
    turnDigest: z.string(),
    purpose: z.enum(["decision", "cancel", "expiry"]),
  }),
  /** A refused decision gave the run back (RUNNING → WAITING_FOR_APPROVAL), pending turn unchanged. */
  run_released: pendingTurnSchema.extend({ stepIndex, refusal: z.string() }),
  approval_decided: z.object({
    stepIndex,
    turnDigest: z.string(),
    approve: z.boolean(),
    actor: z.string(),
    /** Null in headless runs; absent from rows written before sign-in existed. */
    actorId: z.string().nullable().default(null),
    reason: z.string().nullable(),
    /** False when the audit could not store it (only a decision that executes no write goes on). */
    audited: z.boolean(),
    outcome: z.enum(["executed", "denied"]),
    /** The audit rows' shared id (null in version 1, before decisions had one). */
    decisionId: z.string().nullable(),
    /** `turn`: every gate of the pending turn is approved, in order. */
    scope: z.enum(["gate", "turn"]),
    /** The batchIndexes of the gates decided, the barrier first (empty in version 1). */
    gates: z.array(z.number().int().min(0)),
    /** The barrier's arguments as the approver changed them (canonical JSON); null when unchanged. */
    editedArguments: z.string().nullable(),
    /** The barrier's tool, when the approval also grants it for the rest of the run ("always allow"). */
    allowTool: z.string().nullable(),
  }),
  /** A grant of a tool for the rest of the run was revoked: its calls need a decision again from the next step. */
  tool_allowance_revoked: z.object({
    toolName: z.string(),
    actor: z.string(),
    actorId: z.string().nullable(),
  }),
  /** A worker picked the run up at its barrier and applies `action` there. */
  run_resumed: z.object({
    stepIndex,
    action: z.enum(["approve", "deny", "expire", "cancel_turn", "cancel_run"]),
  }),
  /** A wait has used 80% of its time: nobody has decided yet, and it expires at `expiresAt`. */
  approval_expiring: z.object({ stepIndex, turnDigest: z.string(), expiresAt: z.string() }),
  /**
   * Nobody decided within a step of an escalation chain's delay: the next group was told
   * (docs/notifications.md#escalation). `channel` carried it; `to` names the group as configured.
   */
  approval_escalated: z.object({
    stepIndex,
    turnDigest: z.string(),
    channel: z.string(),
    /** 1 for the chain's first step, of `steps`. */
    step: z.number().int().min(1),
    steps: z.number().int().min(1),
    afterMinutes: z.number().int().min(1),
    to: z.object({ users: z.array(z.string()), roles: z.array(z.string()) }),
  }),
  /**
   * Nobody decided in time: the wait expired (never a denial). The barrier
   * settles `expired` and the calls after it are invalidated; `audited` is
   * false when the audit could not store it (an expiry executes nothing).
   */
  approval_expired: z.object({
    stepIndex,
    turnDigest: z.string(),
    batchIndex,
    expiresAt: z.string(),
    decisionId: z.string(),
    audited: z.boolean(),
  }),
  /**
   * An approved call was not sent: its tool's definition (an MCP server's)
   * changed after the approval, so the approval no longer holds. The call
   * settles `tool_changed` and the calls after it are invalidated;
   * `voidedDecision` is the approval it voids, `audited` false when the
   * audit could not store it (nothing was sent either way).
   */
  /**
   * An approval that counts toward the barrier's quorum and does not yet meet it
   * (docs/policies.md#quorum): the run goes on waiting. `turnDigest` is the turn the person
   * approved; `countedFor` the turn the count now stands for (a new one after an edit, which
   * restarts the count; an `awaiting_approval` with it follows in the same write). `approvals`
   * is who has approved `countedFor` so far, this person last.
   */
  approval_counted: z.object({
    stepIndex,
    turnDigest: z.string(),
    countedFor: z.string(),
    actor: z.string(),
    actorId: z.string().nullable(),
    reason: z.string().nullable(),
    decisionId: z.string(),
    editedArguments: z.string().nullable(),
    approvals: z.array(
      z.object({ actor: z.string(), actorId: z.string().nullable(), decisionId: z.string() }),
    ),
    quorum: z.number().int().min(2),
  }),
  approval_voided: z.object({
    stepIndex,
    batchIndex,
    toolName: z.string(),
    decisionId: z.string(),
    voidedDecision: z.string().nullable(),
    reason: z.string(),
    audited: z.boolean(),
  }),
  /**
   * A worker took over a run whose worker was gone (its lease ran out), and
   * went on from what was stored: `by` names the instance, `from` the step and
   * segment it picked up at (null between steps). `reissuedCompletion` is true
   * when the model is asked again for a completion the lost worker may already
   * have requested; the report counts those.
   */
  run_recovered: z.object({
    by: z.string(),
    from: z.object({
      stepIndex: z.number().int().min(0).nullable(),
      segment: z.number().int().min(0).nullable(),
    }),
    resumption: z.enum(["step", "barrier", "next_completion", "returned_to_waiting", "finished"]),
    reissuedCompletion: z.boolean(),
  }),
  run_finished: z.object({
    status: z.enum(["COMPLETED", "FAILED", "CANCELLED"]),
    error: runErrorSchema.nullable(),
  }),
} as const;

export type RunEventType = keyof typeof payloadSchemas;
export type RunEventPayload<T extends RunEventType> = z.infer<(typeof payloadSchemas)[T]>;

/** One event as it is appended: a type and its payload. */
export type RunEvent = { [T in RunEventType]: { type: T; payload: RunEventPayload<T> } }[RunEventType];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** An event as stored and streamed: its place in the run (`seq`) and when it was committed (ISO). */
export type StoredRunEvent = RunEvent & { seq: number; at: string };

export const RUN_EVENT_TYPES = Object.keys(payloadSchemas) as RunEventType[];

/** The version each event type is written at. */
export const RUN_EVENT_VERSIONS: Record<RunEventType, number> = {
  run_started: 3,
  step_planned: 5,
  wave_started: 1,
  call_started: 1,
  call_settled: 1,
  call_progress: 1,
  calls_invalidated: 1,
  step_finished: 1,
  awaiting_approval: 1,
  run_claimed: 1,
  run_released: 1,
  approval_decided: 2,
  run_resumed: 1,
  tool_allowance_revoked: 1,
  approval_expiring: 1,
  approval_escalated: 1,
  approval_expired: 1,
  approval_voided: 1,
  approval_counted: 1,
  run_recovered: 1,
  run_finished: 1,
};

type Upgrade = (payload: Record<string, unknown>) => Record<string, unknown>;

/** A step_planned payload with `fields` added to each of its calls (what is not a call is left for the schema to refuse). */
function withEveryCall(payload: Record<string, unknown>, fields: Record<string, unknown>) {
  const { calls } = payload;
  return {
    ...payload,
    calls: Array.isArray(calls)
      ? calls.map((call: unknown) =>
          call !== null && typeof call === "object" ? { ...call, ...fields } : call,
        )
      : calls,
  };
}

/** Per type, an upgrade from each past version to the next. */
const UPGRADES: Partial<Record<RunEventType, Record<number, Upgrade>>> = {
  // Version 1 came before runs could use MCP servers.
  run_started: {
    1: (payload) => ({ ...payload, mcpServers: [] }),
    // Version 2 came before forks: no run was forked from another.
    2: (payload) => ({ ...payload, forkedFrom: null }),
  },
  step_planned: {
    // Version 1 had no completion count. Every step then was one completion, so it is the step's ordinal.
    1: (payload) => ({ ...payload, modelCalls: Number(payload.stepIndex) + 1 }),
    // Version 2 had no grants ("always allow"): no call was let through by one.
    2: (payload) => withEveryCall(payload, { allowedBy: null }),
    // Version 3 recorded nothing of the completion.
    3: (payload) => ({ ...payload, completion: null }),
    // Version 4 came before MCP tools: no call had a fingerprint.
    4: (payload) => withEveryCall(payload, { toolFingerprint: null }),
  },
  approval_decided: {
    // Version 1 decided the barrier alone, as it was shown, granting nothing.
    1: (payload) => ({
      ...payload,
      decisionId: null,
      scope: "gate",
      gates: [],
      editedArguments: null,
      allowTool: null,
    }),
  },
};

/** A stored event that cannot be read as any version of its type. */
export class UnreadableEventError extends RuntimeError {
  static override readonly brand: string = "UnreadableEventError";
  declare readonly code: "unreadable_event";
  constructor(runId: string, seq: number, detail: string) {
    super("unreadable_event", `Event ${seq} of run ${runId} cannot be decoded: ${detail}`);
  }
}

const isEventType = (type: string): type is RunEventType => Object.hasOwn(payloadSchemas, type);

/**
 * Decodes a stored event of any past version into the current catalogue, or
 * throws {@link UnreadableEventError} naming what is wrong.
 */
export function decodeRunEvent(
  runId: string,
  stored: { seq: number; type: string; version: number; payload: unknown; at: string },
): StoredRunEvent {
  const { seq, type, version } = stored;
  if (!isEventType(type)) throw new UnreadableEventError(runId, seq, `unknown type ${JSON.stringify(type)}`);
  const current = RUN_EVENT_VERSIONS[type];
  if (!Number.isInteger(version) || version < 1 || version > current) {
    throw new UnreadableEventError(runId, seq, `${type} version ${version} is newer than this server knows`);
  }
  let payload = (stored.payload ?? {}) as Record<string, unknown>;
  for (let from = version; from < current; from += 1) {
    const upgrade = UPGRADES[type]?.[from];
    if (upgrade) payload = upgrade(payload);
  }
  const parsed = payloadSchemas[type].safeParse(payload);
  if (!parsed.success)
    throw new UnreadableEventError(runId, seq, `${type}: ${describeFirstIssue(parsed.error)}`);
  return { seq, at: stored.at, type, payload: parsed.data } as StoredRunEvent;
}

// Events whose payloads are drawn from what a store is given: built here, so
// every store emits exactly the same thing.

export function stepPlannedEvent(step: NewStep, modelCalls: number): RunEventOf<"step_planned"> {
  return {
    type: "step_planned",
    payload: {
      stepIndex: step.index,
      modelCalls,
      completion: step.completion,
      text: step.text,
      plan: step.plan,
      metrics: step.metrics,
      calls: step.calls.map(({ call, status, error }) => ({
        batchIndex: call.batchIndex,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        resourceClass: call.resourceClass,
        isGated: call.isGated,
        status,
        error,
        allowedBy: call.allowedBy ?? null,
        toolFingerprint: call.toolFingerprint ?? null,
        ...(call.policy ? { policy: call.policy } : {}),
        ...(call.gatedByDeclaration === undefined ? {} : { gatedByDeclaration: call.gatedByDeclaration }),
        ...(call.shadow ? { shadow: call.shadow } : {}),
      })),
    },
  };
}

export function callsInvalidatedEvent(
  stepIndex: number,
  outcomes: ReadonlyArray<{ batchIndex: number; outcome: CallOutcome }>,
  reason: string,
): RunEventOf<"calls_invalidated"> {
  return {
    type: "calls_invalidated",
    payload: {
      stepIndex,
      reason,
      calls: outcomes.map(({ batchIndex, outcome }) => ({
        batchIndex,
        status: outcome.status,
        error: outcome.error,
      })),
    },
  };
}

export function awaitingApprovalEvent(state: SuspendedState): RunEventOf<"awaiting_approval"> {
  return {
    type: "awaiting_approval",
    payload: { stepIndex: state.stepIndex, ...state.pending },
  };
}

/** An event as the SSE stream sends it: stamped with the version its payload is now in. */
export function toWireEvent(event: StoredRunEvent) {
  return {
    seq: event.seq,
    type: event.type,
    version: RUN_EVENT_VERSIONS[event.type],
    payload: event.payload,
    at: event.at,
  };
}
