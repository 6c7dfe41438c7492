"use server";

import { z } from "zod";
import { runIdSchema, toolNameSchema } from "@/lib/http/request-schemas";
import { runAction } from "@/lib/http/run-action";
import { revokeToolAllowance } from "@/lib/server/revoke-tool-allowance";

const revokeInputSchema = z.object({ runId: runIdSchema, toolName: toolNameSchema }).strict();

/** Revokes the run's grant of a tool ("always allow") as the signed-in approver. */
export async function revokeToolAllowanceAction(input: z.infer<typeof revokeInputSchema>) {
  return runAction(
    revokeInputSchema,
    input,
    async ({ runId, toolName }, identity) => revokeToolAllowance(runId, toolName, identity),
    { role: "approver" },
  );
}
