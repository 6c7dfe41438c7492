import { handleRoute, readBody } from "@/lib/http/api-route";
import { scenarioSchema } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** Starts a run from a scenario (SPEC §8) and answers at once; the run goes on in this process. */
export const POST = handleRoute({ role: "operator" }, async (request: Request, _context, identity) => {
  const scenario = await readBody(request, scenarioSchema);
  const { runId, settled } = await (await getRunService()).startRun(scenario, {
    id: identity.userId,
    name: identity.name,
  });
  settled.catch((error) => console.error(`run ${runId} stopped unexpectedly:`, error));
  return Response.json({ runId }, { status: 201, headers: { location: `/api/runs/${runId}` } });
});
