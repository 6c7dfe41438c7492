import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { isoInstantOrDaySchema, readRangeStart } from "@/lib/http/policy-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { listShadowDisagreements } from "@/lib/server/policies/policies";
import { RequestRefusal } from "@/lib/wire/request-refusal";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Where the shadow policy would have done otherwise than what was done, since `?since=` (an ISO
 * day, or an instant with its offset as the backtest takes; default 7 days ago).
 */
export const GET = handleRoute({ role: "admin" }, async (request: Request) => {
  const raw = new URL(request.url).searchParams.get("since");
  const since = raw === null ? new Date(Date.now() - 7 * DAY_MS) : readSince(raw);
  return jsonAnswer(await listShadowDisagreements((await getDatabase()).db, since));
});

function readSince(raw: string): Date {
  const parsed = isoInstantOrDaySchema.safeParse(raw);
  if (!parsed.success) {
    throw RequestRefusal.invalid([
      {
        path: "since",
        message: `an ISO day (2026-12-01) or date and time with its offset (2026-12-01T09:30:00Z), on the calendar, is needed: got ${JSON.stringify(raw.slice(0, 64))}`,
      },
    ]);
  }
  return readRangeStart(parsed.data);
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
