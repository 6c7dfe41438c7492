import { errorResponse, invalidRequestResponse } from "@/lib/http/error-response";
import { validateScenario } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** Starts a run from a scenario (SPEC §8) and answers at once; the run goes on in this process. */
export async function POST(request: Request) {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return invalidRequestResponse([{ path: "", message: "the body is not valid JSON" }]);
  }
  const validation = validateScenario(body);
  if (!validation.ok) return invalidRequestResponse(validation.issues);
  try {
    const service = await getRunService();
    const { runId, settled } = await service.startRun(validation.scenario);
    settled.catch((error) => console.error(`run ${runId} stopped unexpectedly:`, error));
    return Response.json({ runId }, { status: 201, headers: { location: `/api/runs/${runId}` } });
  } catch (error) {
    return errorResponse(error);
  }
}
