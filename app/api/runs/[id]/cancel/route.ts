import { errorResponse } from "@/lib/http/error-response";
import { readJsonBody } from "@/lib/http/read-request";
import { cancelRequestSchema } from "@/lib/http/request-schemas";
import { readRunId } from "@/lib/http/run-route-context";
import { getRunService } from "@/lib/server/get-run-service";

/** Cancels the run's current turn or the whole run (SPEC §4). */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const runId = await readRunId(context);
    const body = await readJsonBody(request, cancelRequestSchema);
    if (!body.ok) return body.response;
    return Response.json(await (await getRunService()).cancel(runId, body.data.scope));
  } catch (error) {
    return errorResponse(error);
  }
}
