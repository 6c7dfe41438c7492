import { handleRoute, readJsonBody, readPageCursor, readQuery } from "@/lib/http/api-route";
import { runListQuerySchema } from "@/lib/http/list-queries";
import { validateInput } from "@/lib/http/refusal";
import { scenarioSchema } from "@/lib/runtime";
import { getRunService } from "@/lib/server/get-run-service";
import { getLogger } from "@/lib/server/logger";
import { findScenarioPatterns, judgePatterns } from "@/lib/server/patterns/judge-patterns";

/** Starts a run from a scenario (SPEC §8) and answers at once; the run goes on in this process. */
export const POST = handleRoute({ role: "operator" }, async (request: Request, _context, identity) => {
  const body = await readJsonBody(request);
  // Its tools' regular expressions are judged on a worker thread: validating only reads the verdicts.
  await judgePatterns(findScenarioPatterns(body));
  const scenario = validateInput(body, scenarioSchema);
  const { runId, settled } = await (await getRunService()).startRun(scenario, {
    id: identity.userId,
    name: identity.name,
  });
  settled.catch((error: unknown) => getLogger().error({ runId, err: error }, "a run stopped with an error"));
  return Response.json({ runId }, { status: 201, headers: { location: `/api/runs/${runId}` } });
});

/**
 * Every run, newest first: `{ items, total, nextCursor }`, each with its
 * status, who started it and when, its steps and completions. `?status=`,
 * `?q=` (part of its name or its starter's, or the start of its id),
 * `?limit=` (1–200, default 50), `?after=<nextCursor>`.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request) => {
  const query = readQuery(request, runListQuerySchema);
  return Response.json(
    await (await getRunService()).listRuns({
      limit: query.limit,
      after: readPageCursor(query.after),
      filter: { status: query.status, search: query.q },
    }),
  );
});
