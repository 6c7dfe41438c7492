import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getRunService } from "@/lib/server/server-context";

/**
 * Archives the run: the runs list and the inbox leave it out unless asked
 * (`?archived=include|only`). Its starter or an admin; audited; archiving an
 * archived run changes nothing (`changed: false`). docs/housekeeping.md.
 */
export const POST = handleRoute(
  { role: "operator" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    return jsonAnswer(await (await getRunService()).archiveRun(runId, true, identity));
  },
);

/** Unarchives the run (the same rules as archiving). */
export const DELETE = handleRoute(
  { role: "operator" },
  async (_request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    return jsonAnswer(await (await getRunService()).archiveRun(runId, false, identity));
  },
);

export const { GET, HEAD, PUT, PATCH, OPTIONS } = answerOtherMethods({ POST, DELETE });
