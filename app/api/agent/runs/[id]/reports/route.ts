import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { measureUtf8Bytes } from "@/lib/http/request-limits";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { agentReportInputSchema, MAX_REPORTED_RESULT_BYTES } from "@/lib/runtime";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { getRunService } from "@/lib/server/server-context";
import { RequestRefusal } from "@/lib/wire/request-refusal";

/**
 * Reports a released call's outcome with its release token: `{ ok: true,
 * result }` or `{ ok: false, error: { code?, message } }`. The same report
 * twice answers the same; another one is 409 `report_conflict`; a release
 * that lapsed or was cancelled is 409 `release_closed` with the reason.
 */
export const POST = handleRoute(
  { role: "agent" },
  async (request: Request, context: RunRouteContext, identity) => {
    const agent = requireAgent(identity);
    const runId = await readRunId(context);
    const report = await readBody(request, agentReportInputSchema);
    if (report.ok && measureUtf8Bytes(JSON.stringify(report.result ?? null)) > MAX_REPORTED_RESULT_BYTES) {
      throw RequestRefusal.of(
        "payload_too_large",
        `The result is larger than ${MAX_REPORTED_RESULT_BYTES} bytes of JSON: report a smaller one (or an error saying so).`,
      );
    }
    return jsonAnswer(await (await getRunService()).agents.report(runId, agent, report));
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
