import { errorResponse } from "@/lib/http/error-response";
import { readRunId } from "@/lib/http/run-route-context";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";

/** What the live run page shows, folded from every stored event; the page's stream continues after `lastSeq`. */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const runId = await readRunId(context);
    const view = await (await getRunService()).loadView(runId);
    if (!view) throw new RunNotFoundError(runId);
    return Response.json(view);
  } catch (error) {
    return errorResponse(error);
  }
}
