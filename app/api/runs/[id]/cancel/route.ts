import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { cancelRequestSchema } from "@/lib/http/request-schemas";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";

/** Cancels the run's current turn or the whole run (docs/decisions.md#cancelling). */
export const POST = handleRoute({ role: "operator" }, async (request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const { scope } = await readBody(request, cancelRequestSchema);
  return jsonAnswer(await (await getRunService()).cancelRun(runId, scope));
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
