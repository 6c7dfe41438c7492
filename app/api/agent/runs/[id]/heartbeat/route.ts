import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readEmptyBody } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/** Renews the leases of the run's open releases: the agent is alive and still executing them. Takes no body, or `{}`. */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    await readEmptyBody(request);
    return jsonAnswer(await (await getRunService()).agents.heartbeat(runId, agent));
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
