"use server";

import type { z } from "zod";
import { decisionRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { runAction } from "@/lib/http/run-action";
import { getRunService } from "@/lib/server/get-run-service";

const decideTurnInputSchema = decisionRequestSchema.extend({ runId: runIdSchema });

/** Approves or denies the turn that was shown (its `turnDigest`) as the signed-in approver (SPEC §5). */
export async function decideTurnAction(input: z.infer<typeof decideTurnInputSchema>) {
  return runAction(
    decideTurnInputSchema,
    input,
    async ({ runId, approve, turnDigest, reason }, identity) =>
      (await getRunService()).startDecision(runId, {
        approve,
        turnDigest,
        reason,
        actor: identity.name,
        actorId: identity.userId,
      }),
    { role: "approver" },
  );
}
