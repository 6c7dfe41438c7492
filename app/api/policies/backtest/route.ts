import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { backtestPolicySchema, readRange } from "@/lib/http/policy-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { backtestCandidate } from "@/lib/server/policies/policies";
import { getMcpServers } from "@/lib/server/server-context";

/**
 * Runs a candidate policy over the runs recorded in a time range, of one tool and some runs if asked
 * (docs/policies.md#backtest; `since` and `until` each an instant or a day, a day `until` taking in
 * that whole day, UTC): per call what it would have done, the totals and the approver
 * workload per day. Nothing is stored or decided.
 */
export const POST = handleRoute({ role: "admin" }, async (request: Request) => {
  const input = await readBody(request, backtestPolicySchema);
  return jsonAnswer(
    await backtestCandidate(
      (await getDatabase()).db,
      {
        document: input.document,
        ...readRange(input),
        ...(input.tool ? { tool: input.tool } : {}),
        ...(input.runIds ? { runIds: input.runIds } : {}),
      },
      getMcpServers().servers,
    ),
  );
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
