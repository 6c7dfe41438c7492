import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";

/** What the live run page shows, folded from every stored event; the page's stream continues after `lastSeq`. */
export const GET = handleRoute({ role: "viewer" }, async (_request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const view = await (await getRunService()).loadView(runId);
  if (!view) throw new RunNotFoundError(runId);
  return jsonAnswer(view);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
