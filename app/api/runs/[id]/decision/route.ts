import { errorResponse } from "@/lib/http/error-response";
import { readJsonBody } from "@/lib/http/read-request";
import { decisionRequestSchema } from "@/lib/http/request-schemas";
import { readRunId } from "@/lib/http/run-route-context";
import { getRunService } from "@/lib/server/get-run-service";

/** Applies a decision through the coordinator (SPEC §5); refusals map through the one error table. */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const runId = await readRunId(context);
    const body = await readJsonBody(request, decisionRequestSchema);
    if (!body.ok) return body.response;
    const result = await (await getRunService()).decide(runId, body.data);
    return Response.json(result);
  } catch (error) {
    return errorResponse(error);
  }
}
