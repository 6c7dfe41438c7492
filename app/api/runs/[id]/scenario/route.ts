import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";
import { RequestRefusal } from "@/lib/wire/request-refusal";

/**
 * The run as a scripted scenario that replays it (record and replay): its
 * completions, workspace, limits, tools and decisions. `?download=1` asks the
 * browser to save it as a file. What a replay cannot reproduce is listed in
 * the `X-Replay-Notes` header (JSON) and in `GET …/scenario?notes=1`.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const exported = await (await getRunService()).exportScenario(runId);
  if (!exported) throw RequestRefusal.of("not_found", `No run ${runId}.`);
  const query = new URL(request.url).searchParams;
  if (query.get("notes") === "1") return jsonAnswer(exported);
  const headers = new Headers({ "x-replay-notes": encodeURIComponent(JSON.stringify(exported.notes)) });
  if (query.get("download") === "1") {
    headers.set("content-disposition", `attachment; filename="run-${runId}-replay.json"`);
  }
  return jsonAnswer(exported.scenario, { headers });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
