"use server";

import { z } from "zod";
import { readForkRunId } from "@/lib/http/fork-request";
import { serverAction } from "@/lib/http/server-action";
import { getLogger } from "@/lib/server/ops/logger";
import { parseScenarioTextOffThread } from "@/lib/server/patterns/judge-patterns";
import { getRunService } from "@/lib/server/server-context";

const startRunInputSchema = z
  .object({
    scenarioText: z.string(),
    /** The run and step (1-based) this is a fork of (docs/transcript-and-fork.md). */
    forkedFrom: z
      .object({ runId: z.string().max(200), step: z.number().int() })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Starts a run from the playground's scenario text, as the signed-in
 * operator; it continues in the background. A fork names the run it comes
 * from, which must be one the operator could read, at one of its steps.
 */
export async function startRunAction(input: z.infer<typeof startRunInputSchema>) {
  return serverAction(
    startRunInputSchema,
    input,
    async ({ scenarioText, forkedFrom }, identity) => {
      const scenario = await parseScenarioTextOffThread(scenarioText);
      const { runId, settled } = await (await getRunService()).startRun(
        scenario,
        { id: identity.userId, name: identity.name },
        { forkedFrom: forkedFrom ? { ...forkedFrom, runId: readForkRunId(forkedFrom.runId) } : null },
      );
      settled.catch((error: unknown) =>
        getLogger().error({ runId, err: error }, "a run stopped with an error"),
      );
      return { runId };
    },
    // Its size counts against the one body limit as the scenario's own text, as over HTTP.
    { role: "operator", bodyOf: (input) => input.scenarioText },
  );
}
