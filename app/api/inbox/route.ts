import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readPageCursor, readQuery } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";
import { inboxFilterOf, inboxQuerySchema } from "@/lib/wire/list-filters";

/**
 * A page of the runs waiting for a decision, with their pending turns:
 * `{ items, total, nextCursor }`. Filters: `?tool=` (a pending call's tool),
 * `?q=` (part of the run's name, or the start of its id), `?startedBy=`;
 * `?order=newest` (default) or `oldest`; `?limit=` (1–200, default 50) and
 * `?after=<nextCursor of the previous page>`.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = readQuery(request, inboxQuerySchema);
  return jsonAnswer(
    await (await getRunService()).listInbox({
      limit: query.limit,
      after: readPageCursor(query.after),
      filter: inboxFilterOf(query),
    }),
  );
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
