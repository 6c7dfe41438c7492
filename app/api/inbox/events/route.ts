import { handleRoute } from "@/lib/http/api-route";
import { openSseResponse } from "@/lib/http/sse";
import { closeWhenUnauthorized } from "@/lib/server/auth/stream-authorization";
import { getRunService } from "@/lib/server/get-run-service";
import { pipeInbox } from "@/lib/server/inbox-stream";

/** The inbox as server-sent `inbox` events, each a whole snapshot, sent on connect and whenever it changes. */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, _context, identity) => {
  const service = await getRunService();
  return openSseResponse(request.signal, async (channel) => {
    const stopWatching = closeWhenUnauthorized(channel, request, identity, "viewer");
    const stopPiping = await pipeInbox(service, channel);
    return () => {
      stopWatching();
      stopPiping();
    };
  });
});
