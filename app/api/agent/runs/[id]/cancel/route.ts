import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/** The agent gives up its own run: cancelled like any run (open releases closed, later calls invalidated). */
export const POST = handleRoute(
  { role: "agent" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const service = await getRunService();
    await service.agents.requireOwnRun(runId, agent);
    return jsonAnswer(await service.startCancelRun(runId, "run"));
  },
);
