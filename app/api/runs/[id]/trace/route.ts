import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { RunNotFoundError } from "@/lib/runtime";
import { buildRunTimeline } from "@/lib/runtime/view/run-timeline";
import { buildRunTrace } from "@/lib/runtime/view/run-trace";
import { getRunService } from "@/lib/server/server-context";

/** The run as an OpenTelemetry trace file (OTLP/JSON), to open in Jaeger, Tempo or any OTLP viewer. */
export const GET = handleRoute({ role: "viewer" }, async (_request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const view = await (await getRunService()).loadView(runId);
  if (!view) throw new RunNotFoundError(runId);
  const trace = buildRunTrace(runId, view.name, buildRunTimeline(view.log));
  if (!trace) throw new RunNotFoundError(runId);
  return jsonAnswer(trace, {
    headers: { "Content-Disposition": `attachment; filename="run-${runId}-trace.json"` },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
