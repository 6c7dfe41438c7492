import { errorResponse } from "@/lib/http/error-response";
import { readRunId } from "@/lib/http/run-route-context";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** The run with its steps, calls, and pending turn and digest when it waits. */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const runId = await readRunId(context);
    const report = await (await getRunService()).getReport(runId);
    if (!report) throw new RunNotFoundError(runId);
    return Response.json(report);
  } catch (error) {
    return errorResponse(error);
  }
}
