import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/** Where the agent's run stands, without waiting: the same document as `/next?wait=0`. */
export const GET = handleRoute(
  { role: "agent" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    return jsonAnswer(await (await getRunService()).agents.next(runId, agent, { waitMs: 0 }));
  },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
