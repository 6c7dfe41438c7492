import type { ApiOperation } from "./api-operation";

/** The service itself: liveness, readiness, metrics, MCP servers and this description. */
export const SERVICE_OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    path: "/api/health",
    summary: "Liveness: `{ ok }` (an admin also sees the driver)",
    role: "stranger",
    responses: { 200: { description: "The database answers" } },
    refusals: { 503: "`database_unavailable`" },
  },
  {
    method: "GET",
    path: "/api/ready",
    summary: "Readiness: each check's result (an admin also sees the details)",
    role: "stranger",
    responses: { 200: { description: "Ready" } },
    refusals: { 503: "Not ready: the checks say which" },
  },
  {
    method: "GET",
    path: "/api/openapi.json",
    summary: "This description of the HTTP API (OpenAPI 3.1)",
    role: "stranger",
    responses: { 200: { description: "The OpenAPI document" } },
  },
  {
    method: "GET",
    path: "/api/metrics",
    summary: "Prometheus metrics (text exposition format)",
    role: "admin",
    responses: { 200: { description: "Metrics", mediaType: "text/plain" } },
  },
  {
    method: "GET",
    path: "/api/mcp/servers",
    summary: "The operator's MCP servers with their tools",
    role: "operator",
    responses: { 200: { description: "`{ servers, problem }`" } },
  },
];
