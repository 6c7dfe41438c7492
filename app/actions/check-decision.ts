"use server";

import type { z } from "zod";
import { decisionRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { runAction } from "@/lib/http/run-action";
import { getRunService } from "@/lib/server/get-run-service";

const checkDecisionInputSchema = decisionRequestSchema.extend({ runId: runIdSchema });

/**
 * Checks a decision as the coordinator will (the digest, the deadline, edited
 * arguments against the tool's schema and preflight) without taking it: the
 * approval panel checks an edit live while the approver types.
 */
export async function checkDecisionAction(input: z.infer<typeof checkDecisionInputSchema>) {
  return runAction(
    checkDecisionInputSchema,
    input,
    async ({ runId, actor: _, ...decision }, identity) => {
      await (await getRunService()).checkDecision(runId, {
        ...decision,
        actor: identity.name,
        actorId: identity.userId,
      });
      return { ok: true as const };
    },
    { role: "approver" },
  );
}
