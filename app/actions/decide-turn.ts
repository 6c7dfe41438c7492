"use server";

import type { z } from "zod";
import { decisionRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { runAction } from "@/lib/http/run-action";
import { getRunService } from "@/lib/server/get-run-service";

const decideTurnInputSchema = decisionRequestSchema.extend({ runId: runIdSchema });

/**
 * Approves (perhaps with edited arguments, every gate of the turn, or the tool
 * for the rest of the run) or denies the turn that was shown (its
 * `turnDigest`) as the signed-in approver (SPEC §5).
 */
export async function decideTurnAction(input: z.infer<typeof decideTurnInputSchema>) {
  return runAction(
    decideTurnInputSchema,
    input,
    async ({ runId, actor: _, ...decision }, identity) =>
      (await getRunService()).startDecision(runId, {
        ...decision,
        actor: identity.name,
        actorId: identity.userId,
      }),
    { role: "approver" },
  );
}
