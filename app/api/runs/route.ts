import { errorResponse } from "@/lib/http/error-response";
import { readJsonBody } from "@/lib/http/read-request";
import { scenarioSchema } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** Starts a run from a scenario (SPEC §8) and answers at once; the run goes on in this process. */
export async function POST(request: Request) {
  const body = await readJsonBody(request, scenarioSchema);
  if (!body.ok) return body.response;
  try {
    const service = await getRunService();
    const { runId, settled } = await service.startRun(body.data);
    settled.catch((error) => console.error(`run ${runId} stopped unexpectedly:`, error));
    return Response.json({ runId }, { status: 201, headers: { location: `/api/runs/${runId}` } });
  } catch (error) {
    return errorResponse(error);
  }
}
