import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readQuery } from "@/lib/http/api-route";
import { grantListQuerySchema } from "@/lib/http/grant-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { listLiveGrants } from "@/lib/server/grants/grants";

/** The live scoped grants (docs/policies.md#grants), oldest first; `?runId=` for those scoped to one run. */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = readQuery(request, grantListQuerySchema);
  return jsonAnswer(await listLiveGrants((await getDatabase()).db, query));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
