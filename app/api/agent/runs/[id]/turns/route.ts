import { agentWaitQuerySchema, readWaitMs } from "@/lib/http/agent-queries";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody, readQuery } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { agentTurnInputSchema } from "@/lib/runtime";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/**
 * Submits the model's turn `turn` exactly as it emitted it. Planned as the
 * run's own completions are; a batch the planner would send back is refused
 * whole (422 `turn_refused` with its problems). Answers once it is planned
 * (up to `?wait=` seconds, default 10) with what may run now.
 */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const waitMs = readWaitMs(readQuery(request, agentWaitQuerySchema), 10);
    const turn = await readBody(request, agentTurnInputSchema);
    return jsonAnswer(
      await (await getRunService()).agents.submitTurn(runId, agent, turn, { waitMs, signal: request.signal }),
    );
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
