import { handleRoute, readQuery } from "@/lib/http/api-route";
import { inboxFilterOf, inboxQuerySchema } from "@/lib/http/list-queries";
import { openSseResponse } from "@/lib/http/sse";
import { closeWhenUnauthorized } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/get-run-service";
import { pipeInbox } from "@/lib/server/inbox-stream";
import { registerStream } from "@/lib/server/open-streams";

/**
 * The inbox's first page as server-sent events: `inbox`, the whole page, on
 * connect; `inbox-changes` whenever it changes. Takes the filters of
 * `GET /api/inbox` (`tool`, `q`, `startedBy`, `order`).
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, _context, identity) => {
  const query = readQuery(request, inboxQuerySchema);
  const filter = inboxFilterOf(query);
  const service = await getRunService();
  return openSseResponse(request.signal, async (channel) => {
    const stopWatching = closeWhenUnauthorized(channel, request, identity, "viewer");
    const stopPiping = await pipeInbox(service, channel, filter);
    const forgetStream = registerStream(channel);
    return () => {
      forgetStream();
      stopWatching();
      stopPiping();
    };
  });
});
