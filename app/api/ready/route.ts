import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { isAdminRequest } from "@/lib/server/auth/is-admin-request";
import { checkReadiness, withoutDetails } from "@/lib/server/ops/check-readiness";
import { getLogger } from "@/lib/server/ops/logger";

/**
 * Readiness for orchestrators: 200 when the database answers, its migrations
 * are applied and the background work runs (or is left to workers); 503
 * otherwise. Anyone gets each check's result and a fixed code; the details
 * (a driver's message names hosts and databases) go to the server log, and
 * to an admin. `GET /api/health` stays the liveness check.
 */
export async function GET(request: Request) {
  const readiness = await checkReadiness();
  const status = readiness.ready ? 200 : 503;
  if (!readiness.ready) getLogger().warn({ checks: readiness.checks }, "not ready");
  // An admin can only be recognised while the database answers.
  const isAdmin = readiness.checks.database.ok && (await isAdminRequest(request.headers));
  return jsonAnswer(isAdmin ? readiness : withoutDetails(readiness), {
    status,
    headers: { "cache-control": "no-store" },
  });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
