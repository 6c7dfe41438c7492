"use server";

import type { z } from "zod";
import { cancelRequestSchema, runIdSchema } from "@/lib/http/request-schemas";
import { serverAction } from "@/lib/http/server-action";
import { getRunService } from "@/lib/server/server-context";

const cancelRunInputSchema = cancelRequestSchema.extend({ runId: runIdSchema });

/** Cancels the current turn or the whole run (docs/decisions.md#cancelling), running or waiting. */
export async function cancelRunAction(input: z.infer<typeof cancelRunInputSchema>) {
  return serverAction(
    cancelRunInputSchema,
    input,
    async ({ runId, scope }) => (await getRunService()).startCancelRun(runId, scope),
    { role: "operator" },
  );
}
