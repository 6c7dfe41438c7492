"use server";

import { z } from "zod";
import { runIdSchema, toolNameSchema } from "@/lib/http/request-schemas";
import { serverAction } from "@/lib/http/server-action";
import { revokeToolAllowance } from "@/lib/server/runs/revoke-tool-allowance";

const revokeInputSchema = z.object({ runId: runIdSchema, toolName: toolNameSchema }).strict();

/** Revokes the run's grant of a tool ("always allow") as the signed-in approver. */
export async function revokeToolAllowanceAction(input: z.infer<typeof revokeInputSchema>) {
  return serverAction(
    revokeInputSchema,
    input,
    async ({ runId, toolName }, identity) => revokeToolAllowance(runId, toolName, identity),
    { role: "approver" },
  );
}
