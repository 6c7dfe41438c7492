import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { csvAttachment, today } from "@/lib/http/csv-attachment";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";
import { auditFilterOf, auditQuerySchema } from "@/lib/wire/list-filters";

/**
 * The approvals audit, newest first: every decision, expired wait and
 * automatic approval, from the append-only table. Filters: `?outcome=`
 * (approved, denied, expired, automatic), `?actor=`, `?tool=`, `?run=` (part
 * of its name or the start of its id). JSON pages: `{ items, nextBefore }`,
 * `?limit=` (1–200, default 100), `?before=<nextBefore>`. `?format=csv`: every
 * matching row as one CSV file.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = readQuery(request, auditQuerySchema);
  const filter = auditFilterOf(query);
  const service = await getRunService();
  if (query.format === "csv") {
    return csvAttachment(await service.exportAuditCsv(filter), `audit-${today()}`);
  }
  return jsonAnswer(await service.listAudit({ limit: query.limit, before: query.before, filter }));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
