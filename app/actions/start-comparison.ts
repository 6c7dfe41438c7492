"use server";

import { z } from "zod";
import { serverAction } from "@/lib/http/server-action";
import { getLogger } from "@/lib/server/ops/logger";
import { parseScenarioTextOffThread } from "@/lib/server/patterns/judge-patterns";
import { getRunService } from "@/lib/server/server-context";

const startComparisonInputSchema = z.object({ scenarioText: z.string() }).strict();

/**
 * Starts the playground's scenario twice, under each execution policy
 * (barriers, then legacy), as the signed-in operator: the compare view
 * shows them side by side. Each run waits for a person at its gates, as
 * every run started in the browser does.
 */
export async function startComparisonAction(input: z.infer<typeof startComparisonInputSchema>) {
  return serverAction(
    startComparisonInputSchema,
    input,
    async ({ scenarioText }, identity) => {
      const scenario = await parseScenarioTextOffThread(scenarioText);
      const service = await getRunService();
      const runIds: string[] = [];
      for (const executionPolicy of ["barriers", "legacy"] as const) {
        const { runId, settled } = await service.startRun(
          { ...scenario, name: `${scenario.name} [${executionPolicy}]`, executionPolicy },
          { id: identity.userId, name: identity.name },
        );
        settled.catch((error: unknown) =>
          getLogger().error({ runId, err: error }, "a run stopped with an error"),
        );
        runIds.push(runId);
      }
      return { runIds };
    },
    { role: "operator", bodyOf: (input) => input.scenarioText },
  );
}
