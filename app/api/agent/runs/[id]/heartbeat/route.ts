import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/** Renews the leases of the run's open releases: the agent is alive and still executing them. */
export const POST = handleRoute(
  { role: "agent" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    return jsonAnswer(await (await getRunService()).agents.heartbeat(runId, agent));
  },
);
