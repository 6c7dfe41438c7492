import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** The run with its steps, calls, and pending turn and digest when it waits. */
export const GET = handleRoute({ role: "viewer" }, async (_request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const report = await (await getRunService()).getReport(runId);
  if (!report) throw new RunNotFoundError(runId);
  return Response.json(report);
});
