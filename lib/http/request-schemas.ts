import { z } from "zod";
import { grantRequestSchema } from "@/lib/runtime/grants/tool-grant";
import { ownRecordSchema } from "@/lib/runtime/own-record-schema";

/**
 * POST /api/runs/[id]/decision. A missing or null digest is not a 400: the
 * coordinator refuses it as `stale_turn`. Who decides is whoever signed in
 * (or owns the token): a body that still names an `actor` is refused, so an
 * old client notices instead of believing its name was recorded.
 */
export const decisionRequestSchema = z
  .object({
    approve: z.boolean(),
    turnDigest: z.string().nullable().optional(),
    /** A denial's reply to the model. */
    reason: z.string().max(2000).nullable().optional(),
    /** Approvals only: the barrier's arguments as changed by the approver (checked with the tool's schema). */
    editedArguments: ownRecordSchema(z.unknown()).nullable().optional(),
    /** Approvals only: `turn` approves every gate of the pending turn, in order. */
    scope: z.enum(["gate", "turn"]).optional(),
    /** Approvals only: later calls of the barrier's tool in this run need no approval (kept for older clients; `grant` says more). */
    alwaysAllow: z.boolean().optional(),
    /**
     * Approvals only: a scoped grant of the barrier's tool (docs/policies.md#grants): `scope`
     * (run, agent, user, everyone), an optional CEL `condition`, `expiresInSeconds`, `maxUses`.
     */
    grant: grantRequestSchema.nullable().optional(),
    actor: z.never({ error: "who decides is taken from your sign-in or API token; remove actor" }).optional(),
  })
  .strict();

/** DELETE /api/runs/[id]/allowances/[tool]: a tool name as the scenario spells it. */
export const toolNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "is not a tool name");
export type DecisionRequest = z.infer<typeof decisionRequestSchema>;

/** POST /api/runs/[id]/cancel */
export const cancelRequestSchema = z.object({ scope: z.enum(["turn", "run"]) }).strict();

/** The body of a request that takes nothing (POST /api/agent/runs/[id]/heartbeat): `{}`, when there is one. */
export const emptyBodySchema = z
  .object(
    {},
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `takes no body: send none, or {} (not ${issue.keys.map((key) => JSON.stringify(key)).join(", ")})`
          : "takes no body: send none, or {}",
    },
  )
  .strict();

/** POST /api/faults (only with PLAYGROUND_FAULTS=1) */
export const faultRequestSchema = z
  .object({ target: z.enum(["approvals", "steps"]), failNext: z.number().int().min(0).max(1000) })
  .strict();

/** Run ids are UUIDs; anything else cannot name a run. */
export const runIdSchema = z.uuid();

/** POST /api/faults/unreadable-state (only with PLAYGROUND_FAULTS=1) */
export const unreadableStateRequestSchema = z.object({ runId: runIdSchema }).strict();
