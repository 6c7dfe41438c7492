import { changeUserBodySchema, userEmailSchema } from "@/lib/http/account-schemas";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { changeUser, removeUser } from "@/lib/server/auth/account-changes";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";
import { validateInput } from "@/lib/wire/request-refusal";

type Context = { params: Promise<{ email: string }> };

/**
 * The address in the path, as Next decoded it (its route matcher decodes each segment once):
 * decoded again, `/api/users/%25` was a 500 and an address with `%` in it named someone else.
 */
async function readEmail(context: Context): Promise<string> {
  return validateInput((await context.params).email, userEmailSchema, "email");
}

/**
 * One change to a person's account (admins; audited): `{ role }`,
 * `{ isActive }` or `{ password }` → the user as they now are. Never leaves no
 * active admin; an admin cannot deactivate themself.
 */
export const PATCH = handleRoute({ role: "admin" }, async (request: Request, context: Context, identity) => {
  const email = await readEmail(context);
  const change = await readBody(request, changeUserBodySchema);
  const actor = { id: identity.userId, email: identity.email };
  return jsonAnswer(await changeUser(await getAuth(), (await getDatabase()).db, actor, { email, ...change }));
});

/** Removes a person with their sessions and tokens (admins; audited; the audit keeps their rows). */
export const DELETE = handleRoute(
  { role: "admin" },
  async (_request: Request, context: Context, identity) => {
    const email = await readEmail(context);
    const actor = { id: identity.userId, email: identity.email };
    return jsonAnswer({
      removed: await removeUser(await getAuth(), (await getDatabase()).db, actor, { email }),
    });
  },
);

export const { GET, HEAD, POST, PUT, OPTIONS } = answerOtherMethods({ PATCH, DELETE });
