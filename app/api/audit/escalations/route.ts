import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { csvAttachment, today } from "@/lib/http/csv-attachment";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";
import { escalationsQuerySchema } from "@/lib/wire/list-filters";

/**
 * The escalation steps that fired, newest first (docs/notifications.md#escalation): `{ items }`,
 * the latest `?limit=` (1–200, default 100). `?run=` (part of its name or the start of its id)
 * narrows them; `?format=csv`: every matching step as one CSV file.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const { run, limit, format } = readQuery(request, escalationsQuerySchema);
  const service = await getRunService();
  if (format === "csv") {
    return csvAttachment(await service.exportEscalationsCsv({ run }), `escalations-${today()}`);
  }
  return jsonAnswer({ items: await service.listEscalations({ run, limit }) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
