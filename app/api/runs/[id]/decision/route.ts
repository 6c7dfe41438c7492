import { handleRoute, readBody } from "@/lib/http/api-route";
import { decisionRequestSchema } from "@/lib/http/request-schemas";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { getRunService } from "@/lib/server/get-run-service";

/** Applies a decision through the coordinator (SPEC §5); refusals map through the one error table. */
export const POST = handleRoute(
  { role: "approver" },
  async (request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    const { approve, turnDigest, reason } = await readBody(request, decisionRequestSchema);
    const decision = { approve, turnDigest, reason, actor: identity.name, actorId: identity.userId };
    return Response.json(await (await getRunService()).decide(runId, decision));
  },
);
