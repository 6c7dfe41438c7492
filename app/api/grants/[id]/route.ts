import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { grantIdSchema } from "@/lib/http/grant-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { quoteSentText } from "@/lib/runtime";
import { getDatabase } from "@/lib/server/database";
import { revokeGrant } from "@/lib/server/grants/grants";
import { RequestRefusal } from "@/lib/wire/request-refusal";

interface GrantRouteContext {
  params: Promise<{ id: string }>;
}

/** Revokes a grant (its giver or an admin): calls planned from now on are gated again. */
export const DELETE = handleRoute(
  { role: "approver" },
  async (_request: Request, context: GrantRouteContext, identity) => {
    const { id } = await context.params;
    if (!grantIdSchema.safeParse(id).success) {
      throw RequestRefusal.invalid([
        { path: "id", message: `must be a grant id (a UUID); got ${quoteSentText(id)}` },
      ]);
    }
    return jsonAnswer(await revokeGrant((await getDatabase()).db, id, identity));
  },
);

export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = answerOtherMethods({ DELETE });
