import { agentWaitQuerySchema, readWaitMs } from "@/lib/http/agent-queries";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody, readQuery } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { agentFinishInputSchema } from "@/lib/runtime";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";

/** Ends the run with the agent's final text: turn `turn` as a lone `finish` call, which the server runs. */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const waitMs = readWaitMs(readQuery(request, agentWaitQuerySchema), 10);
    const { turn, text } = await readBody(request, agentFinishInputSchema);
    const call = { id: `finish_${turn}`, name: "finish", arguments: JSON.stringify({ summary: text }) };
    return jsonAnswer(
      await (await getRunService()).agents.submitTurn(
        runId,
        agent,
        { turn, text, calls: [call] },
        { waitMs, signal: request.signal },
      ),
    );
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
