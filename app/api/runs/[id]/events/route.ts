import { handleRoute } from "@/lib/http/api-route";
import { readResumeSeq } from "@/lib/http/read-resume-seq";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { openSseResponse } from "@/lib/http/sse";
import { RunNotFoundError } from "@/lib/runtime";
import { closeWhenUnauthorized } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/get-run-service";
import { pipeRunEvents } from "@/lib/server/run-event-stream";

/** The run's events as server-sent events: replay after `Last-Event-ID` (or `?after=`), then live (SPEC §7). */
export const GET = handleRoute(
  { role: "viewer" },
  async (request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    const afterSeq = readResumeSeq(request);
    const service = await getRunService();
    if (!(await service.getRun(runId))) throw new RunNotFoundError(runId);
    return openSseResponse(request.signal, async (channel) => {
      const stopWatching = closeWhenUnauthorized(channel, request, identity, "viewer");
      const stopPiping = await pipeRunEvents(service, runId, afterSeq, channel);
      return () => {
        stopWatching();
        stopPiping();
      };
    });
  },
);
