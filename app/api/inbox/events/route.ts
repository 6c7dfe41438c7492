import { handleRoute } from "@/lib/http/api-route";
import { openSseResponse } from "@/lib/http/sse";
import { getRunService } from "@/lib/server/get-run-service";
import { pipeInbox } from "@/lib/server/inbox-stream";

/** The inbox as server-sent `inbox` events, each a whole snapshot, sent on connect and whenever it changes. */
export const GET = handleRoute(async (request: Request) => {
  const service = await getRunService();
  return openSseResponse(request.signal, (channel) => pipeInbox(service, channel));
});
