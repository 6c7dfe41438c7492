import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { isAdminRequest } from "@/lib/server/auth/is-admin-request";
import { checkDatabaseHealth } from "@/lib/server/ops/check-database-health";
import { getLogger } from "@/lib/server/ops/logger";

/**
 * Liveness, for anyone: the status and a fixed code. Why the database does
 * not answer (a driver's message names hosts, ports and databases) goes to
 * the server log; an admin also sees which driver answers. Sent uncompressed
 * (`jsonAnswer`): probes ask often, and gzip would cost more than the answer.
 */
export async function GET(request: Request): Promise<Response> {
  const health = await checkDatabaseHealth();
  if (health.ok) {
    return jsonAnswer((await isAdminRequest(request.headers)) ? health : { ok: true }, {
      headers: { "cache-control": "no-store" },
    });
  }
  getLogger().warn({ reason: health.reason }, "health check: the database does not answer");
  return jsonAnswer(
    {
      ok: false,
      error: {
        code: "database_unavailable",
        message: "The database does not answer; the server log says why.",
      },
    },
    { status: 503, headers: { "cache-control": "no-store" } },
  );
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
