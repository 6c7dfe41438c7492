import { handleRoute } from "@/lib/http/api-route";
import { getMcpServers } from "@/lib/server/mcp/get-mcp-servers";
import { listMcpServerTools } from "@/lib/server/mcp/list-mcp-tools";

/**
 * The operator's MCP servers with their tools, listed afresh: each tool's
 * name on the server and for models, its description (untrusted text from
 * the server), schemas and annotations, what the playground makes of it
 * (effect, class, approval, and why) and its fingerprint. Never a command,
 * an environment or a URL. `{ servers, problem }`.
 */
export const GET = handleRoute({ role: "operator" }, async () => {
  const { servers, problem } = getMcpServers();
  const listed = await Promise.all([...servers].map(([id, config]) => listMcpServerTools(id, config)));
  return Response.json({ servers: listed, problem });
});
