import { agentWaitQuerySchema, readWaitMs } from "@/lib/http/agent-queries";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readEmptyBody, readQuery } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/**
 * The agent gives up its own run: cancelled like any run (open releases closed, later calls
 * invalidated). Answers once the run has ended (up to `?wait=` seconds, default 10) with its status.
 * It takes no body, or `{}`: a body asking for something else (people's cancel takes a `scope`) is
 * refused, not read as a cancel of the whole run.
 */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const waitMs = readWaitMs(readQuery(request, agentWaitQuerySchema), 10);
    await readEmptyBody(request);
    return jsonAnswer(
      await (await getRunService()).agents.cancel(runId, agent, { waitMs, signal: request.signal }),
    );
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
