import { tokenIdSchema } from "@/lib/http/account-schemas";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { revokeToken } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { validateInput } from "@/lib/wire/request-refusal";

/** Revokes one token by its id (admins): it stops working at once, everywhere. `404` when there is none. */
export const DELETE = handleRoute(
  { role: "admin" },
  async (_request: Request, context: { params: Promise<{ id: string }> }) => {
    const id = validateInput((await context.params).id, tokenIdSchema, "id");
    return jsonAnswer({ revoked: await revokeToken((await getDatabase()).db, id) });
  },
);

export const { GET, HEAD, POST, PUT, PATCH, OPTIONS } = answerOtherMethods({ DELETE });
