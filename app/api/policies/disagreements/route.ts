import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { disagreementsQuerySchema, readRange } from "@/lib/http/policy-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { listShadowDisagreements } from "@/lib/server/policies/policies";

/**
 * Where the shadow policy would have done otherwise than what was done, planned from `?since=`
 * (default 7 days ago) until `?until=` (default none), each an ISO day or an instant with its
 * offset, read and checked as the backtest's range is.
 */
export const GET = handleRoute({ role: "admin" }, async (request: Request) => {
  const range = readRange(readQuery(request, disagreementsQuerySchema));
  return jsonAnswer(await listShadowDisagreements((await getDatabase()).db, range));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
