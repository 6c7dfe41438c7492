import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { openAgentRunInputSchema } from "@/lib/runtime";
import { requireAgent } from "@/lib/server/agents/require-agent";
import { findScenarioPatterns, judgePatterns } from "@/lib/server/patterns/judge-patterns";
import { getRunService } from "@/lib/server/server-context";

/**
 * Opens an agent's run (docs/agent-api.md): its declared tools, settings and
 * free metadata; the run waits for turn 0. Answers `{ runId, next }`.
 */
export const POST = handleRoute({ role: "agent" }, async (request: Request, _context, identity) => {
  const agent = requireAgent(identity);
  const input = await readBody(request, openAgentRunInputSchema);
  // Its tools' regular expressions are judged on a worker thread, as a scenario's are.
  await judgePatterns(findScenarioPatterns({ tools: input.tools }));
  const service = await getRunService();
  const { runId } = await service.agents.openRun(input, agent);
  const next = await service.agents.next(runId, agent, { waitMs: 0 });
  return jsonAnswer({ runId, next }, { status: 201, headers: { location: `/api/agent/runs/${runId}` } });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
