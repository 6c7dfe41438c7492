import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { normalizeWorkspacePath, RunNotFoundError, ToolError } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";
import { RequestRefusal } from "@/lib/wire/request-refusal";

/**
 * One file of the run's virtual workspace as it is now: `{ path, content }`,
 * `content` null when there is no such file. `?path=` is normalised as the
 * file tools normalise it. The approval panel shows a gated write as a diff
 * against this.
 */
export const GET = handleRoute({ role: "viewer" }, async (request: Request, context: RunRouteContext) => {
  const runId = await readRunId(context);
  const requested = new URL(request.url).searchParams.get("path");
  if (requested === null)
    throw RequestRefusal.invalid([{ path: "path", message: "is required, such as ?path=notes/todo.md" }]);
  let path: string;
  try {
    path = normalizeWorkspacePath(requested);
  } catch (error) {
    if (!ToolError.isInstance(error)) throw error;
    throw RequestRefusal.invalid([{ path: "path", message: error.message }]);
  }
  const service = await getRunService();
  if (!(await service.getRun(runId))) throw new RunNotFoundError(runId);
  return jsonAnswer({ path, content: (await service.readWorkspaceFile(runId, path)) ?? null });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
