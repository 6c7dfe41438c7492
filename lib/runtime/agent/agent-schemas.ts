/**
 * What an agent sends (docs/agent-api.md), checked at the boundary. The
 * limits here answer hostile input with a clear refusal before anything is
 * stored.
 */
import { z } from "zod";
import { ownRecordSchema } from "../own-record-schema";
import { printableNameSchema } from "../person-name-schema";
import { agentModelSchema, scenarioLimitsSchema } from "../scenario/scenario-schema";
import { approvalTimeoutSchema, customToolDeclarationSchema } from "../tools/custom-tool-declaration";

/** At most this many tool calls in one turn (the planner's cap is at most 1024; a turn is refused above this). */
export const MAX_CALLS_PER_TURN = 1_024;
/** At most this many bytes of JSON in one reported result (an error result says the result was too large). */
export const MAX_REPORTED_RESULT_BYTES = 1024 * 1024;
/** The longest error code a report may carry (characters). */
export const MAX_ERROR_CODE_CHARACTERS = 64;
/** The longest a long poll waits before answering `wait` (seconds). */
export const MAX_POLL_WAIT_SECONDS = 60;

/** `POST /api/agent/runs`: what an agent opens a run with. */
export const openAgentRunInputSchema = z
  .object({
    // Checked as it comes in; a stored run's scenario is decoded as it was stored.
    name: printableNameSchema(200),
    agent: agentModelSchema.shape.agent.extend({ name: printableNameSchema(200) }),
    /** The agent's own tools, declared as a scenario declares custom tools; the agent executes them. */
    tools: z
      .array(customToolDeclarationSchema.omit({ result: true, error: true, delayMs: true }))
      .max(256)
      .default([]),
    /** Approval settings by tool name (`always`/`never`), as in a scenario. */
    approvals: ownRecordSchema(z.enum(["always", "never"])).optional(),
    limits: scenarioLimitsSchema.optional(),
    approvalTimeoutSeconds: approvalTimeoutSchema.optional(),
    mcpServers: z.array(z.string()).max(16).optional(),
    workspace: ownRecordSchema(z.string()).optional(),
    policy: z.object({ requireDistinctApprover: z.boolean().optional() }).strict().optional(),
    releaseLeaseSeconds: z.number().min(0.05).max(86_400).optional(),
  })
  .strict();
export type OpenAgentRunInput = z.infer<typeof openAgentRunInputSchema>;

const usageSchema = z
  .object({
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
    totalTokens: z.number().int().min(0),
  })
  .strict();

/** One tool call exactly as the model emitted it: `arguments` is its raw text, JSON or not. */
const agentToolCallSchema = z
  .object({
    id: z.string().min(1).max(256),
    name: z.string().min(1).max(256),
    arguments: z.string({ error: "must be the raw arguments text exactly as the model emitted it" }),
  })
  .strict();

/** `POST /api/agent/runs/:id/turns`: the model's turn, bound to the turn number it answers. */
export const agentTurnInputSchema = z
  .object({
    turn: z.number().int().min(0),
    text: z.string().max(100_000).nullable().default(null),
    calls: z.array(agentToolCallSchema).max(MAX_CALLS_PER_TURN, `at most ${MAX_CALLS_PER_TURN} calls a turn`),
    usage: usageSchema.nullable().optional(),
  })
  .strict();
export type AgentTurnInput = z.infer<typeof agentTurnInputSchema>;

/** `POST /api/agent/runs/:id/finish`: ends the run with the agent's final text (a lone `finish` call). */
export const agentFinishInputSchema = z
  .object({ turn: z.number().int().min(0), text: z.string().max(100_000) })
  .strict();

/** `POST /api/agent/runs/:id/reports`: a released call's outcome, with the release's token. */
export const agentReportInputSchema = z.union([
  z.object({ releaseToken: z.string().min(1).max(200), ok: z.literal(true), result: z.unknown() }).strict(),
  z
    .object({
      releaseToken: z.string().min(1).max(200),
      ok: z.literal(false),
      error: z
        .object({
          // Length and form are told apart: a well-formed code that is too long hears only its length.
          code: z
            .string()
            .max(MAX_ERROR_CODE_CHARACTERS)
            .regex(/^[a-z][a-z0-9_]*$/, "must be a snake_case code")
            .optional(),
          message: z.string().min(1).max(10_000),
        })
        .strict(),
    })
    .strict(),
]);
export type AgentReportInput = z.infer<typeof agentReportInputSchema>;
