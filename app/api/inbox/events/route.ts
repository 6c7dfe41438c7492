import { errorResponse } from "@/lib/http/error-response";
import { openSseResponse } from "@/lib/http/sse";
import { getRunService } from "@/lib/server/get-run-service";
import { pipeInbox } from "@/lib/server/inbox-stream";

/** The inbox as server-sent `inbox` events, each a whole snapshot, sent on connect and whenever it changes. */
export async function GET(request: Request) {
  try {
    const service = await getRunService();
    return openSseResponse(request.signal, (channel) => pipeInbox(service, channel));
  } catch (error) {
    return errorResponse(error);
  }
}
