import { agentWaitQuerySchema, readWaitMs } from "@/lib/http/agent-queries";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/**
 * "What may I do now?" (docs/agent-api.md): released calls to execute, the
 * turn to submit with the last turn's outcome, or the run's end. While there
 * is only waiting to do, waits up to `?wait=` seconds (default 25) first;
 * with `?after=<version>`, waits until the answer is another one.
 */
export const GET = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const query = readQuery(request, agentWaitQuerySchema);
    return jsonAnswer(
      await (await getRunService()).agents.next(runId, agent, {
        waitMs: readWaitMs(query, 25),
        signal: request.signal,
        after: query.after,
      }),
    );
  },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
