import { agentWaitQuerySchema, readWaitMs } from "@/lib/http/agent-queries";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/**
 * The agent gives up its own run: cancelled like any run (open releases closed, later calls
 * invalidated). Answers once the run has ended (up to `?wait=` seconds, default 10) with its status.
 */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const waitMs = readWaitMs(readQuery(request, agentWaitQuerySchema), 10);
    return jsonAnswer(
      await (await getRunService()).agents.cancel(runId, agent, { waitMs, signal: request.signal }),
    );
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
