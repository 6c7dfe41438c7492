import { z } from "zod";
import { ToolConfigurationError } from "../errors";
import { ownRecordSchema } from "../own-record-schema";
import { approvalTimeoutSchema, customToolDeclarationSchema } from "../tools/custom-tool-declaration";
import { createToolRegistry } from "../tools/tool-registry";
import { normalizeWorkspacePath } from "../tools/workspace";

/**
 * The scenario file format (docs/scenario-format.md): a public contract kept in users' repos.
 * Fields may be added; none may change meaning. Unknown keys are refused so a
 * typo ("decision" for "decisions") is an error that names the path, not a
 * silently ignored setting.
 */

const positiveInteger = z.number().int().positive();

export const scenarioLimitsSchema = z
  .object({
    maxParallelToolCalls: positiveInteger.max(1024).optional(),
    maxBatchPayloadBytes: positiveInteger.optional(),
    maxRepairAttempts: z.number().int().min(0).max(100).optional(),
  })
  .strict();

/** Raw arguments as a model emits them (any string, even broken JSON), or an object. */
export const scenarioCallSchema = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    arguments: z.union([z.string(), ownRecordSchema(z.unknown())], {
      error: "must be the raw arguments as a string (exactly as a model emitted them) or a JSON object",
    }),
  })
  .strict();

export const scenarioTurnSchema = z
  .object({
    text: z.string().optional(),
    calls: z.array(scenarioCallSchema).default([]),
    /** How long the model takes to answer this turn, like a real one (for demos and crash tests). */
    delayMs: z.number().int().min(0).max(600_000).optional(),
  })
  .strict();

export const scriptedModelSchema = z
  .object({
    kind: z.literal("scripted"),
    turns: z.array(scenarioTurnSchema),
  })
  .strict();

/** Where a model lives and how it is paid for is the operator's configuration, never the scenario's. */
const OPERATOR_ONLY =
  "model endpoints are configured by the server's operator (PLAYGROUND_MODELS); name one with model.endpoint";
const operatorOnlyField = z.never({ error: OPERATOR_ONLY }).optional();

/**
 * A real model: one of the endpoints the operator configured, named by
 * `endpoint`, with this run's own prompt, system prompt and temperature.
 */
export const openAiCompatibleModelSchema = z
  .object({
    kind: z.literal("openai-compatible"),
    endpoint: z.string().min(1, "must name a configured model endpoint").max(64),
    prompt: z.string().min(1),
    system: z.string().optional(),
    temperature: z.number().min(0).max(2).optional(),
    /**
     * Completions answered from this script before the endpoint is asked (a
     * fork of a recorded run: the steps before the fork step replay what the
     * model said then; docs/transcript-and-fork.md).
     */
    replayTurns: z.array(scenarioTurnSchema).optional(),
    baseURL: operatorOnlyField,
    apiKeyEnv: operatorOnlyField,
    model: operatorOnlyField,
  })
  .strict();

/**
 * An agent that runs outside the playground and drives the run over HTTP
 * (docs/agent-api.md): its turns are the completions, and the scenario's
 * declared tools are executed by it. Only the server writes this model (at
 * `POST /api/agent/runs`, naming the token that opened the run); a scenario
 * started any other way may not use it.
 */
export const agentModelSchema = z
  .object({
    kind: z.literal("agent"),
    /** What the agent says of itself: free text, shown with the run. */
    agent: z
      .object({
        name: z.string().min(1).max(200),
        version: z.string().max(200).optional(),
        traceId: z.string().max(200).optional(),
        metadata: ownRecordSchema(z.string().max(2_000)).optional(),
      })
      .strict(),
    /** The API token that opened the run, and its owner: only that token may drive and read it. */
    openedBy: z
      .object({
        tokenId: z.string().min(1),
        tokenName: z.string(),
        ownerId: z.string(),
        ownerName: z.string(),
      })
      .strict(),
    /** How long a released call holds without a report or heartbeat (seconds). */
    releaseLeaseSeconds: z.number().min(0.05).max(86_400).default(60),
  })
  .strict();

export const scenarioModelSchema = z.discriminatedUnion("kind", [
  scriptedModelSchema,
  openAiCompatibleModelSchema,
  agentModelSchema,
]);

export const approvalSettingSchema = z.enum(["always", "never"]);

export const scenarioDecisionSchema = z
  .object({
    approve: z.boolean(),
    actor: z.string().min(1).optional(),
    /** A denial's reply to the model. */
    reason: z.string().optional(),
    /** Approvals only: the barrier's arguments as the approver changes them. */
    editedArguments: ownRecordSchema(z.unknown()).optional(),
    /** Approvals only: `turn` approves every gate of the pending turn. */
    scope: z.enum(["gate", "turn"]).optional(),
    /** Approvals only: later calls of the barrier's tool in this run need no approval. */
    alwaysAllow: z.boolean().optional(),
  })
  .strict();

/**
 * The most characters a new scenario's name may have: the limit the agent API sets a run's name
 * (docs/agent-api.md), so every run's name obeys one. A run stored before the limit keeps its
 * longer name: {@link storedScenarioSchema} reads it.
 */
export const MAX_SCENARIO_NAME_LENGTH = 200;

const storedScenarioObjectSchema = z
  .object({
    name: z.string().min(1),
    limits: scenarioLimitsSchema.default({}),
    // Keyed by names a person chose: `__proto__` is a file or a tool name like any other.
    workspace: ownRecordSchema(z.string()).default({}),
    approvals: ownRecordSchema(approvalSettingSchema).default({}),
    tools: z
      .array(customToolDeclarationSchema)
      .default([])
      .superRefine((tools, context) => {
        const seen = new Set<string>();
        tools.forEach((tool, index) => {
          if (seen.has(tool.name)) {
            context.addIssue({
              code: "custom",
              path: [index, "name"],
              message: `duplicate tool name "${tool.name}"`,
            });
          }
          seen.add(tool.name);
        });
      }),
    model: scenarioModelSchema,
    decisions: z.array(scenarioDecisionSchema).default([]),
    /** A wait for a decision expires after this long unless the barrier's tool sets its own; none when unset. */
    approvalTimeoutSeconds: approvalTimeoutSchema.optional(),
    /**
     * `barriers` (default): oversized read batches run in waves and gated calls are barriers.
     * `legacy`: what this replaces, for comparison: an oversized batch is refused whole, and a
     * batch is cut after its gated call, the rest regenerated after the decision.
     */
    executionPolicy: z.enum(["barriers", "legacy"]).default("barriers"),
    /**
     * The operator's MCP servers whose tools the run may use, by id (their
     * names are `<id>__<tool>`). The server says which ids exist.
     */
    mcpServers: z
      .array(z.string().regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, "must be a configured MCP server's id"))
      .max(16)
      .refine((ids) => new Set(ids).size === ids.length, "names a server more than once")
      .optional(),
    /** `requireDistinctApprover`: whoever started the run may not approve its gated calls. */
    policy: z.object({ requireDistinctApprover: z.boolean().optional() }).strict().optional(),
  })
  .strict();

/** A scenario as it comes in (a file, the playground, the HTTP API, an agent's run): its name capped. */
const scenarioObjectSchema = storedScenarioObjectSchema.extend({
  name: z.string().min(1).max(MAX_SCENARIO_NAME_LENGTH, `at most ${MAX_SCENARIO_NAME_LENGTH} characters`),
});

/**
 * What the runtime will refuse at start must be refused here, with a path:
 * workspace paths that leave the workspace, and a tool set that cannot be
 * built. `compileSchemas: false` checks the tool set without compiling its
 * argument schemas (Ajv compiles them to code, which a page's
 * Content-Security-Policy forbids): the server compiles them when it starts
 * the run, and refuses one that does not compile with the same path.
 */
const refineScenario =
  (compileSchemas: boolean) =>
  (scenario: z.infer<typeof storedScenarioObjectSchema>, context: z.RefinementCtx) => {
    for (const path of Object.keys(scenario.workspace)) {
      try {
        normalizeWorkspacePath(path);
      } catch (error) {
        context.addIssue({ code: "custom", path: ["workspace", path], message: messageOf(error) });
      }
    }
    const names = scenario.tools.map((tool) => tool.name);
    if (new Set(names).size < names.length) return; // already reported, each by its path
    try {
      createToolRegistry({ tools: scenario.tools, approvals: scenario.approvals, compileSchemas });
    } catch (error) {
      const toolName = ToolConfigurationError.isInstance(error) ? error.toolName : "";
      const toolIndex = scenario.tools.findIndex((tool) => tool.name === toolName);
      const path =
        toolIndex >= 0
          ? ["tools", toolIndex]
          : Object.hasOwn(scenario.approvals, toolName)
            ? ["approvals", toolName]
            : ["tools"];
      context.addIssue({ code: "custom", path, message: messageOf(error) });
    }
  };

export const scenarioSchema = scenarioObjectSchema.superRefine(refineScenario(true));
/** The same checks but compiling no argument schema: for a browser page, which may not run generated code. */
export const scenarioSchemaWithoutCompiling = scenarioObjectSchema.superRefine(refineScenario(false));
/**
 * A scenario a run stored when it started: the same checks, but a name over
 * {@link MAX_SCENARIO_NAME_LENGTH} (from before the limit) is read as it is. It only
 * validates, as {@link scenarioSchema} does: a scenario within the limit decodes to the same
 * object, so its agent's digest (`scenarioAgentOf`) is what it was.
 */
export const storedScenarioSchema = storedScenarioObjectSchema.superRefine(refineScenario(true));

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioTurn = z.infer<typeof scenarioTurnSchema>;
export type AgentModel = z.infer<typeof agentModelSchema>;
export type ScenarioDecision = z.infer<typeof scenarioDecisionSchema>;
