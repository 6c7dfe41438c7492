import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { toolNameSchema } from "@/lib/http/request-schemas";
import { readRunId } from "@/lib/http/run-route-context";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { quoteSentText } from "@/lib/runtime";
import { revokeToolAllowance } from "@/lib/server/runs/revoke-tool-allowance";
import { RequestRefusal } from "@/lib/wire/request-refusal";

interface AllowanceRouteContext {
  params: Promise<{ id: string; tool: string }>;
}

/** Revokes the run's grant of a tool ("always allow"): its calls wait for a decision again from the next step. */
export const DELETE = handleRoute(
  { role: "approver" },
  async (_request: Request, context: AllowanceRouteContext, identity) => {
    const runId = await readRunId(context);
    const { tool } = await context.params;
    if (!toolNameSchema.safeParse(tool).success) {
      throw RequestRefusal.invalid([
        {
          path: "tool",
          message: `must be a tool name (letters, digits, '_' or '-'); got ${quoteSentText(tool)}`,
        },
      ]);
    }
    return jsonAnswer(await revokeToolAllowance(runId, tool, identity));
  },
);

export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = answerOtherMethods({ DELETE });
