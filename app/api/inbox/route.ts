import { handleRoute } from "@/lib/http/api-route";
import { RequestRefusal } from "@/lib/http/refusal";
import { getRunService } from "@/lib/server/get-run-service";
import { decodeCursor, INBOX_PAGE_SIZE } from "@/lib/server/list-inbox";

const MAX_PAGE_SIZE = 200;

/**
 * A page of the runs waiting for a decision, newest wait first, with their
 * pending turns: `{ items, total, nextCursor }`. `?limit=` (1–200, default
 * 50) and `?after=<nextCursor of the previous page>`.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = new URL(request.url).searchParams;
  const limitText = query.get("limit");
  const limit = limitText === null ? INBOX_PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw RequestRefusal.of(
      "invalid_request",
      `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}; got "${limitText}".`,
    );
  }
  const afterText = query.get("after");
  const after = afterText === null ? null : decodeCursor(afterText);
  if (afterText !== null && after === null) {
    throw RequestRefusal.of("invalid_request", "after must be the nextCursor of a page this server sent.");
  }
  return Response.json(await (await getRunService()).listInbox({ limit, after }));
});
