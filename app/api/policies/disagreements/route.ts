import { handleRoute } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { listShadowDisagreements } from "@/lib/server/policies/policies";
import { RequestRefusal } from "@/lib/wire/request-refusal";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where the shadow policy would have done otherwise than what was done, since `?since=` (ISO; default 7 days ago). */
export const GET = handleRoute({ role: "admin" }, async (request: Request) => {
  const raw = new URL(request.url).searchParams.get("since");
  const since = raw === null ? new Date(Date.now() - 7 * DAY_MS) : new Date(raw);
  if (Number.isNaN(since.getTime())) {
    throw RequestRefusal.of(
      "invalid_request",
      `since must be an ISO date and time, got ${JSON.stringify(raw)}`,
    );
  }
  return jsonAnswer(await listShadowDisagreements((await getDatabase()).db, since));
});
