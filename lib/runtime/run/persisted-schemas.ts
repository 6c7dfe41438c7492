/**
 * zod schemas of what the runtime persists and announces: the pieces of a
 * suspended state and of event payloads. Stored data is decoded with these,
 * never cast. Each schema is checked against the runtime type it decodes to
 * (`satisfies`), so a type and its schema cannot drift apart.
 */
import { z } from "zod";
import { RuntimeError } from "../errors";
import type { CompletionRecord, ModelUsage, TranscriptEntry } from "../model/model";
import { ownRecordSchema } from "../own-record-schema";
import type { PreflightedCall } from "../planner/preflight";
import type { PolicyDecision } from "../policy/decide-call";
import type { ShadowRecord } from "../policy/policy-source";
import {
  EFFECTS,
  type Limits,
  PLAN_PROBLEM_CODES,
  type Plan,
  RESOURCE_CLASSES,
  type ToolCall,
} from "../types";
import {
  CALL_STATUSES,
  type CallOutcome,
  type PendingTurn,
  type RunError,
  type ShownToolDefinition,
  type StepMetrics,
} from "./run-types";

export const runErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
}) satisfies z.ZodType<RunError>;

export const limitsSchema = z.object({
  maxParallelToolCalls: z.number().int(),
  maxBatchPayloadBytes: z.number().int(),
  maxRepairAttempts: z.number().int(),
}) satisfies z.ZodType<Limits>;

const problemSchema = z.object({
  batchIndex: z.number().int().nullable(),
  code: z.enum(PLAN_PROBLEM_CODES),
  message: z.string(),
});

const segmentSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("wave"), batchIndexes: z.array(z.number().int().min(0)) }),
  z.object({ kind: z.literal("barrier"), batchIndex: z.number().int().min(0) }),
]);

export const planSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("execute"),
    segments: z.array(segmentSchema),
    problems: z.array(problemSchema),
  }),
  z.object({ kind: z.literal("repair"), segments: z.tuple([]), problems: z.array(problemSchema) }),
]) satisfies z.ZodType<Plan>;

export const stepMetricsSchema = z.object({
  originalSize: z.number().int(),
  cap: z.number().int(),
  waveCount: z.number().int(),
  waveBoundaries: z.array(z.tuple([z.number().int(), z.number().int()])),
  completedWaves: z.number().int(),
  approvalBarriers: z.number().int(),
  retainedCount: z.number().int(),
  invalidatedCount: z.number().int(),
  repairReason: z.string().nullable(),
}) satisfies z.ZodType<StepMetrics>;

export const callStatusSchema = z.enum(CALL_STATUSES);

export const callOutcomeSchema = z.object({
  status: callStatusSchema,
  result: z.unknown(),
  error: runErrorSchema.nullable(),
}) satisfies z.ZodType<CallOutcome>;

const fingerprintSchema = z.string().regex(/^[0-9a-f]{64}$/);

export const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  batchIndex: z.number().int().min(0),
}) satisfies z.ZodType<ToolCall>;

const policyApproversSchema = z.object({
  role: z.enum(["approver", "admin"]).nullable(),
  people: z.array(z.string()),
  groups: z.array(z.string()),
});

/** What a policy rule decided for a call (docs/policies.md#how-a-call-is-decided). */
export const policyDecisionSchema = z.discriminatedUnion("effect", [
  z.object({ effect: z.literal("allow"), version: z.number().int().nullable(), rule: z.string() }),
  z.object({
    effect: z.literal("require"),
    version: z.number().int().nullable(),
    rule: z.string(),
    approvers: policyApproversSchema,
    quorum: z.number().int().min(1),
    error: z.string().optional(),
  }),
  z.object({
    effect: z.literal("deny"),
    version: z.number().int().nullable(),
    rule: z.string(),
    message: z.string(),
  }),
]) satisfies z.ZodType<PolicyDecision>;

/** What a shadow policy would have done with a call (docs/policies.md#publishing-versions-and-shadow). */
export const shadowRecordSchema = z.object({
  version: z.number().int(),
  outcome: z.enum(["allow", "require", "deny"]),
  rule: z.string().nullable(),
  error: z.string().optional(),
}) satisfies z.ZodType<ShadowRecord>;

export const preflightedCallSchema = z.object({
  batchIndex: z.number().int().min(0),
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  parsedArguments: ownRecordSchema(z.unknown()).nullable(),
  resourceClass: z.enum(RESOURCE_CLASSES).nullable(),
  effect: z.enum(EFFECTS),
  isGated: z.boolean(),
  problem: problemSchema.nullable(),
  allowedBy: z
    .object({ decisionId: z.string(), actor: z.string(), actorId: z.string().nullable() })
    .optional(),
  toolFingerprint: fingerprintSchema.optional(),
  policy: policyDecisionSchema.optional(),
  gatedByDeclaration: z.boolean().optional(),
  shadow: shadowRecordSchema.optional(),
}) satisfies z.ZodType<PreflightedCall>;

export const transcriptEntrySchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({
    role: z.literal("assistant"),
    text: z.string().nullable(),
    calls: z.array(toolCallSchema),
    synthesized: z.boolean().optional(),
  }),
  z.object({
    role: z.literal("tool"),
    callId: z.string(),
    name: z.string(),
    batchIndex: z.number().int(),
    status: z.string(),
    result: z.unknown(),
    error: runErrorSchema.nullable(),
    note: z.string().optional(),
  }),
  z.object({ role: z.literal("repair_notice"), text: z.string() }),
]) satisfies z.ZodType<TranscriptEntry>;

const shownToolDefinitionSchema = z.object({
  name: z.string(),
  fingerprint: fingerprintSchema,
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  origin: z.object({
    kind: z.literal("mcp"),
    server: z.string(),
    trust: z.enum(["trusted", "untrusted"]),
    serverToolName: z.string(),
    annotations: z.record(z.string(), z.unknown()).nullable(),
    outputSchema: z.unknown(),
    basis: z.string(),
  }),
}) satisfies z.ZodType<ShownToolDefinition>;

export const pendingTurnSchema = z.object({
  turnDigest: z.string().regex(/^[0-9a-f]{64}$/),
  calls: z.array(toolCallSchema.extend({ toolFingerprint: fingerprintSchema.optional() })).min(1),
  tools: z.array(shownToolDefinitionSchema).optional(),
  gates: z.array(z.number().int().min(0)).optional(),
  expiresAt: z.string().optional(),
  quorum: z.number().int().min(2).optional(),
  approvals: z
    .array(z.object({ actor: z.string(), actorId: z.string().nullable(), decisionId: z.string() }))
    .optional(),
}) satisfies z.ZodType<PendingTurn>;

export const modelUsageSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
}) satisfies z.ZodType<ModelUsage>;

export const completionRecordSchema = z.object({
  latencyMs: z.number().int().min(0),
  usage: modelUsageSchema.nullable(),
  preamble: z.object({ version: z.number().int(), text: z.string() }).nullable(),
  synthesized: z.boolean(),
}) satisfies z.ZodType<CompletionRecord>;

/** The first problem zod found, as `path: message`, for errors that name what is wrong. */
export function describeFirstIssue(error: z.ZodError): string {
  const first = error.issues[0];
  return `${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}`;
}

/** A run's stored limits (or another column the runtime reads) cannot be decoded: the row is damaged. */
export class UnreadableRunError extends RuntimeError {
  static override readonly brand: string = "UnreadableRunError";
  declare readonly code: "unreadable_run";
  constructor(runId: string, detail: string) {
    super("unreadable_run", `Run ${runId} cannot be read: ${detail}`);
  }
}

/** A run's stored limits, decoded. */
export function decodeLimits(runId: string, stored: unknown): Limits {
  const parsed = limitsSchema.safeParse(stored);
  if (!parsed.success) throw new UnreadableRunError(runId, `limits: ${describeFirstIssue(parsed.error)}`);
  return parsed.data;
}
