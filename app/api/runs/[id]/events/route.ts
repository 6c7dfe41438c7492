import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { readResumeSeq } from "@/lib/http/read-resume-seq";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { RunNotFoundError } from "@/lib/runtime";
import { closeWhenUnauthorized, holdsRole } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/server-context";
import { pipeRunEvents } from "@/lib/server/streams/client-event-stream";
import { openEventStream } from "@/lib/server/streams/open-event-stream";

/**
 * The run's events as server-sent events: replay after `Last-Event-ID` (or `?after=`), then live
 * (docs/streams.md). Within the stream bounds of docs/streams.md: 429 `too_many_streams` past the
 * open-stream limits.
 */
export const GET = handleRoute(
  { role: "viewer" },
  async (request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    const afterSeq = readResumeSeq(request);
    const service = await getRunService();
    const run = await service.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    return openEventStream(request, identity, async (channel) => {
      const stopWatching = closeWhenUnauthorized(channel, request, identity, holdsRole("viewer"));
      try {
        const stopPiping = await pipeRunEvents(service, runId, afterSeq, channel, run);
        return () => {
          stopWatching();
          stopPiping();
        };
      } catch (error) {
        stopWatching();
        throw error;
      }
    });
  },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
