import { changeOwnPasswordSchema } from "@/lib/http/account-schemas";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { changeOwnPassword } from "@/lib/server/auth/account-changes";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";

/**
 * The caller's own password (`playground account password --server …`), given
 * the current one: `{ currentPassword, newPassword }` → `{ changed: true }`.
 * Every session of theirs ends (a token has none of its own to keep); audited.
 */
export const POST = handleRoute({ role: "viewer" }, async (request: Request, _context, identity) => {
  const passwords = await readBody(request, changeOwnPasswordSchema);
  await changeOwnPassword(await getAuth(), (await getDatabase()).db, identity, passwords);
  return jsonAnswer({ changed: true });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
