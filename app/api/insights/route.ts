import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { csvAttachment } from "@/lib/http/csv-attachment";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import {
  insightsQuerySchema,
  insightsTableCsv,
  loadApprovalInsights,
} from "@/lib/server/insights/approval-insights";

/**
 * Where approvals wait (the insights page's numbers): `?range=24h|7d|30d` (default 7d). JSON by
 * default; `?format=csv&table=waits-over-time|by-tool|by-approver|by-server|calls|completions`
 * gives one table as CSV. Operators and admins.
 */
export const GET = handleRoute({ role: "operator" }, async (request: Request) => {
  const query = readQuery(request, insightsQuerySchema);
  const insights = await loadApprovalInsights(query.range);
  if (query.format === "csv") {
    const table = query.table ?? "by-tool";
    return csvAttachment(insightsTableCsv(insights, table), `insights-${table}-${query.range}`);
  }
  return jsonAnswer(insights);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
