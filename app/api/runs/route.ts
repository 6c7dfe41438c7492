import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readJsonBody, readPageCursor, readQuery } from "@/lib/http/api-route";
import { readForkQuery } from "@/lib/http/fork-request";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { scenarioSchema } from "@/lib/runtime";
import { getLogger } from "@/lib/server/ops/logger";
import { findScenarioPatterns, judgePatterns } from "@/lib/server/patterns/judge-patterns";
import { getRunService } from "@/lib/server/server-context";
import { runListQuerySchema } from "@/lib/wire/list-filters";
import { validateInput } from "@/lib/wire/request-refusal";

/**
 * Starts a run from a scenario (docs/scenario-format.md) and answers at once; the run goes on in
 * this process. `?forkOf=<runId>&step=<n>` records it as a fork of that run from that step.
 */
export const POST = handleRoute({ role: "operator" }, async (request: Request, _context, identity) => {
  const body = await readJsonBody(request);
  // Its tools' regular expressions are judged on a worker thread: validating only reads the verdicts.
  await judgePatterns(findScenarioPatterns(body));
  const scenario = validateInput(body, scenarioSchema);
  // `?forkOf=<runId>&step=<n>`: a fork of that run from that step (docs/transcript-and-fork.md).
  const forkedFrom = readForkQuery(new URL(request.url).searchParams);
  const { runId, settled } = await (await getRunService()).startRun(
    scenario,
    { id: identity.userId, name: identity.name },
    { forkedFrom },
  );
  settled.catch((error: unknown) => getLogger().error({ runId, err: error }, "a run stopped with an error"));
  return jsonAnswer({ runId }, { status: 201, headers: { location: `/api/runs/${runId}` } });
});

/**
 * Every run, newest first: `{ items, total, totalCapped, nextCursor }` (`total` counts up to
 * 10,000; `totalCapped` says more match), each with its
 * status, who started it and when, its steps and completions. `?status=`,
 * `?q=` (part of its name or its starter's, or the start of its id),
 * `?limit=` (1–200, default 50), `?after=<nextCursor>`.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = readQuery(request, runListQuerySchema);
  return jsonAnswer(
    await (await getRunService()).listRuns({
      limit: query.limit,
      after: readPageCursor(query.after),
      filter: { status: query.status, search: query.q, archived: query.archived },
    }),
  );
});

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
