import { z } from "zod";
import { EFFECTS, RESOURCE_CLASSES } from "../types";

/**
 * The scenario file format (SPEC §8): a public contract kept in users' repos.
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
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())], {
      error: "must be the raw arguments as a string (exactly as a model emitted them) or a JSON object",
    }),
  })
  .strict();

export const scenarioTurnSchema = z
  .object({
    text: z.string().optional(),
    calls: z.array(scenarioCallSchema).default([]),
  })
  .strict();

export const scriptedModelSchema = z
  .object({
    kind: z.literal("scripted"),
    turns: z.array(scenarioTurnSchema),
  })
  .strict();

export const openAiCompatibleModelSchema = z
  .object({
    kind: z.literal("openai-compatible"),
    baseURL: z.url(),
    model: z.string().min(1),
    apiKeyEnv: z.string().min(1).optional(),
    prompt: z.string().min(1),
    system: z.string().optional(),
  })
  .strict();

export const scenarioModelSchema = z.discriminatedUnion("kind", [
  scriptedModelSchema,
  openAiCompatibleModelSchema,
]);

export const approvalSettingSchema = z.enum(["always", "never"]);

export const customToolSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, _ or -"),
    description: z.string().default(""),
    resourceClass: z.enum(RESOURCE_CLASSES),
    effect: z.enum(EFFECTS),
    approval: approvalSettingSchema.default("never"),
    parameters: z.record(z.string(), z.unknown()).default({ type: "object" }),
    result: z.unknown().optional(),
    error: z.string().nullable().optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
  })
  .strict();

export const scenarioDecisionSchema = z
  .object({
    approve: z.boolean(),
    actor: z.string().min(1).optional(),
    reason: z.string().optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().min(1),
    limits: scenarioLimitsSchema.default({}),
    workspace: z.record(z.string(), z.string()).default({}),
    approvals: z.record(z.string(), approvalSettingSchema).default({}),
    tools: z
      .array(customToolSchema)
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
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioTurn = z.infer<typeof scenarioTurnSchema>;
export type ScenarioDecision = z.infer<typeof scenarioDecisionSchema>;
export type CustomToolInput = z.infer<typeof customToolSchema>;
