import { checkReadiness } from "@/lib/server/check-readiness";

/**
 * Readiness for orchestrators: 200 when the database answers, its migrations
 * are applied and the background work runs (or is left to workers); 503 with
 * the failing check named otherwise. `GET /api/health` stays the liveness check.
 */
export async function GET() {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.ready ? 200 : 503 });
}
