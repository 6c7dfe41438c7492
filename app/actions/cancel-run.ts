"use server";

import type { z } from "zod";
import { cancelRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { runAction } from "@/lib/http/run-action";
import { getRunService } from "@/lib/server/get-run-service";

const cancelRunInputSchema = cancelRequestSchema.extend({ runId: runIdSchema });

/** Cancels the current turn or the whole run (SPEC §4), running or waiting. */
export async function cancelRunAction(input: z.infer<typeof cancelRunInputSchema>) {
  return runAction(
    cancelRunInputSchema,
    input,
    async ({ runId, scope }) => (await getRunService()).startCancelRun(runId, scope),
    { role: "operator" },
  );
}
