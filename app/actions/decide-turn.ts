"use server";

import type { z } from "zod";
import { decisionRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { serverAction } from "@/lib/http/server-action";
import { getRunService } from "@/lib/server/server-context";

const decideTurnInputSchema = decisionRequestSchema.extend({ runId: runIdSchema });

/**
 * Approves (perhaps with edited arguments, every gate of the turn, or the tool
 * for the rest of the run) or denies the turn that was shown (its
 * `turnDigest`) as the signed-in approver (docs/decisions.md#what-happens-to-a-decision-in-order).
 */
export async function decideTurnAction(input: z.infer<typeof decideTurnInputSchema>) {
  return serverAction(
    decideTurnInputSchema,
    input,
    async ({ runId, actor: _, ...decision }, identity) =>
      (await getRunService()).startDecision(runId, {
        ...decision,
        actor: identity.name,
        actorId: identity.userId,
        decider: { role: identity.role, email: identity.email, userId: identity.userId },
      }),
    { role: "approver" },
  );
}
