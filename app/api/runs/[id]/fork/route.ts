import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { readForkStep } from "@/lib/http/fork-request";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";

/**
 * `?step=<n>`: the run as the scenario of a fork from its step n (1 for the
 * first), `{ scenario, notes, forkedFrom }` (docs/transcript-and-fork.md).
 * Start it with `POST /api/runs?forkOf=<id>&step=<n>` to record where it came
 * from. No such run: 404, as reading it; a step it does not have: 400.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const step = readForkStep(new URL(request.url).searchParams.get("step"));
  const forked = await (await getRunService()).forkScenario(runId, step);
  if (!forked) throw new RunNotFoundError(runId);
  return jsonAnswer(forked);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
