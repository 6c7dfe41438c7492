import { handleRoute } from "@/lib/http/api-route";
import { getDatabase } from "@/lib/server/database";
import { readMetrics } from "@/lib/server/metrics/read-metrics";

/**
 * Prometheus metrics (text exposition format), for an admin: an API token of
 * an admin, or an admin's session. Without credentials, scrape the loopback
 * listener instead (`PLAYGROUND_METRICS_PORT`), which only this machine can reach.
 */
export const GET = handleRoute({ role: "admin" }, async () => {
  const { contentType, text } = await readMetrics((await getDatabase()).db);
  return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
