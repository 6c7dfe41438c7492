import { createTokenSchema } from "@/lib/http/account-schemas";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { createToken, listTokens } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";

/** Every API token, newest first, never its secret (admins; `playground token list --server …`). */
export const GET = handleRoute({ role: "admin" }, async () =>
  jsonAnswer(await listTokens((await getDatabase()).db)),
);

/**
 * Creates a token for a person: `{ email, name, role? }` → 201 `{ token, summary }`. The token is
 * in this answer only; it is stored as a hash.
 */
export const POST = handleRoute({ role: "admin" }, async (request: Request, _context, identity) => {
  const input = await readBody(request, createTokenSchema);
  const created = await createToken(await getAuth(), (await getDatabase()).db, {
    ...input,
    creatorRole: identity.role,
  });
  return jsonAnswer(created, { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
