import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { closeWhenUnauthorized, holdsRole } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/server-context";
import { pipeInbox } from "@/lib/server/streams/inbox-stream";
import { openEventStream } from "@/lib/server/streams/open-event-stream";
import { inboxFilterOf, inboxQuerySchema } from "@/lib/wire/list-filters";

/**
 * The inbox's first page as server-sent events: `inbox`, the whole page, on
 * connect; `inbox-changes` whenever it changes. Takes the filters of
 * `GET /api/inbox` (`tool`, `q`, `startedBy`, `order`). Within the stream
 * bounds of docs/streams.md: 429 `too_many_streams` past the open-stream limits.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, _context, identity) => {
  const query = readQuery(request, inboxQuerySchema);
  const filter = inboxFilterOf(query);
  const service = await getRunService();
  return openEventStream(request, identity, async (channel) => {
    const stopWatching = closeWhenUnauthorized(channel, request, identity, holdsRole("viewer"));
    try {
      const stopPiping = await pipeInbox(service, channel, filter);
      return () => {
        stopWatching();
        stopPiping();
      };
    } catch (error) {
      stopWatching();
      throw error;
    }
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
