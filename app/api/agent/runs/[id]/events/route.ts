import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { readResumeSeq } from "@/lib/http/read-resume-seq";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { mayActAsAgent, requireAgent } from "@/lib/server/agents/require-agent";
import { closeWhenUnauthorized } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/server-context";
import { pipeRunEvents } from "@/lib/server/streams/client-event-stream";
import { openSseResponse } from "@/lib/server/streams/sse-channel";

/** The agent's own run's events as server-sent events, exactly as `/api/runs/:id/events` sends them. */
export const GET = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const afterSeq = readResumeSeq(request);
    const service = await getRunService();
    const { run } = await service.agents.requireOwnRun(runId, agent);
    return openSseResponse(request.signal, async (channel) => {
      const stopWatching = closeWhenUnauthorized(channel, request, identity, mayActAsAgent);
      const stopPiping = await pipeRunEvents(service, runId, afterSeq, channel, run);
      return () => {
        stopWatching();
        stopPiping();
      };
    });
  },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
