import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { readProcessMetrics } from "@/lib/server/metrics/read-metrics";

/**
 * Prometheus metrics (text exposition format), for an admin: an API token of
 * an admin, or an admin's session. Without credentials, scrape the loopback
 * listener instead (`PLAYGROUND_METRICS_PORT`), which only this machine can reach.
 */
export const GET = handleRoute({ role: "admin" }, async () => {
  const { contentType, text } = await readProcessMetrics();
  return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
