"use server";

import { z } from "zod";
import { runIdSchema } from "@/lib/http/request-schemas";
import { serverAction } from "@/lib/http/server-action";
import { getRunService } from "@/lib/server/server-context";

const archiveInputSchema = z.object({ runId: runIdSchema, archived: z.boolean() }).strict();
const deleteInputSchema = z.object({ runId: runIdSchema }).strict();

/** Archives or unarchives a run, as POST/DELETE /api/runs/[id]/archive (docs/housekeeping.md). */
export async function archiveRunAction(input: z.infer<typeof archiveInputSchema>) {
  return serverAction(
    archiveInputSchema,
    input,
    async ({ runId, archived }, identity) => (await getRunService()).archiveRun(runId, archived, identity),
    { role: "operator" },
  );
}

/** Deletes a finished run's own data, as DELETE /api/runs/[id]; the audit stays (docs/housekeeping.md). */
export async function deleteRunAction(input: z.infer<typeof deleteInputSchema>) {
  return serverAction(
    deleteInputSchema,
    input,
    async ({ runId }, identity) => (await getRunService()).deleteRun(runId, identity),
    { role: "operator" },
  );
}
