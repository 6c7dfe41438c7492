import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { RunNotFoundError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";

/** The run with its steps, calls, and pending turn and digest when it waits. */
export const GET = handleRoute({ role: "viewer" }, async (_request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const report = await (await getRunService()).getReport(runId);
  if (!report) throw new RunNotFoundError(runId);
  return jsonAnswer(report);
});

/**
 * Deletes a finished run's own data (run, events, steps, files…); its
 * decisions stay in the audit. Its starter or an admin; 409 `run_active` while
 * it runs or waits; audited. docs/housekeeping.md.
 */
export const DELETE = handleRoute(
  { role: "operator" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    return jsonAnswer(await (await getRunService()).deleteRun(runId, identity));
  },
);

export const { POST, PUT, PATCH, OPTIONS } = answerOtherMethods({ GET, DELETE });
