import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getMcpConnections, getMcpServers } from "@/lib/server/server-context";

/**
 * The operator's MCP servers with their tools, listed afresh: each tool's
 * name on the server and for models, its description (untrusted text from
 * the server), schemas and annotations, what the playground makes of it
 * (effect, class, approval, and why) and its fingerprint. Never a command,
 * an environment or a URL. `{ servers, problem }`.
 */
export const GET = handleRoute({ role: "operator" }, async () => {
  const { servers, problem } = getMcpServers();
  const connections = getMcpConnections();
  const listed = await Promise.all([...servers.keys()].map((id) => connections.list(id)));
  return jsonAnswer({ servers: listed, problem });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
