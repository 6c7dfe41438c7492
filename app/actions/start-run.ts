"use server";

import { z } from "zod";
import { runAction } from "@/lib/http/run-action";
import { getRunService } from "@/lib/server/get-run-service";
import { getLogger } from "@/lib/server/logger";
import { parseScenarioTextOffThread } from "@/lib/server/patterns/judge-patterns";

const startRunInputSchema = z.object({ scenarioText: z.string() }).strict();

/** Starts a run from the playground's scenario text, as the signed-in operator; it continues in the background. */
export async function startRunAction(input: z.infer<typeof startRunInputSchema>) {
  return runAction(
    startRunInputSchema,
    input,
    async ({ scenarioText }, identity) => {
      const scenario = await parseScenarioTextOffThread(scenarioText);
      const { runId, settled } = await (await getRunService()).startRun(scenario, {
        id: identity.userId,
        name: identity.name,
      });
      settled.catch((error: unknown) =>
        getLogger().error({ runId, err: error }, "a run stopped with an error"),
      );
      return { runId };
    },
    // Its size counts against the one body limit as the scenario's own text, as over HTTP.
    { role: "operator", bodyOf: (input) => input.scenarioText },
  );
}
