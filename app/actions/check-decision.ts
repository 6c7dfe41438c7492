"use server";

import type { z } from "zod";
import { decisionRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { serverAction } from "@/lib/http/server-action";
import { getRunService } from "@/lib/server/server-context";

const checkDecisionInputSchema = decisionRequestSchema.extend({ runId: runIdSchema });

/**
 * Checks a decision as the coordinator will (the digest, the deadline, edited
 * arguments against the tool's schema and preflight) without taking it: the
 * approval panel checks an edit live while the approver types.
 */
export async function checkDecisionAction(input: z.infer<typeof checkDecisionInputSchema>) {
  return serverAction(
    checkDecisionInputSchema,
    input,
    async ({ runId, actor: _, ...decision }, identity) => {
      await (await getRunService()).checkDecision(runId, {
        ...decision,
        actor: identity.name,
        actorId: identity.userId,
        decider: { role: identity.role, email: identity.email, userId: identity.userId },
      });
      return { ok: true as const };
    },
    { role: "approver" },
  );
}
