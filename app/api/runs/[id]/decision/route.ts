import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { decisionRequestSchema } from "@/lib/http/request-schemas";
import { type RunRouteContext, readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { quoteSentText } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";
import { RequestRefusal } from "@/lib/wire/request-refusal";

/**
 * Applies a decision through the coordinator (docs/decisions.md#what-happens-to-a-decision-in-order);
 * refusals map through the one error table. It answers once the decision has taken effect (checked,
 * audited, announced; the run goes on: `status` is RUNNING, or WAITING_FOR_APPROVAL for an approval
 * counted toward a quorum), so a slow model never holds the request open; `?wait=settled` answers when the run next waits or ends instead, with that status (an agent's
 * run, RUNNING once the decision took effect: what comes next is the agent's to do).
 */
export const POST = handleRoute(
  { role: "approver" },
  async (request: Request, context: RunRouteContext, identity) => {
    const runId = await readRunId(context);
    const wait = new URL(request.url).searchParams.get("wait");
    if (wait !== null && wait !== "settled") {
      throw RequestRefusal.invalid([
        {
          path: "wait",
          message: `must be "settled" (to answer when the run next waits or ends), or left out (to answer once the decision took effect); got ${quoteSentText(wait)}`,
        },
      ]);
    }
    const { actor: _, ...body } = await readBody(request, decisionRequestSchema);
    const decision = {
      ...body,
      actor: identity.name,
      actorId: identity.userId,
      decider: { role: identity.role, email: identity.email, userId: identity.userId },
    };
    const service = await getRunService();
    return jsonAnswer(
      wait === "settled"
        ? await service.decide(runId, decision)
        : await service.startDecision(runId, decision),
    );
  },
);

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
