import { addUserSchema } from "@/lib/http/account-schemas";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { addUser } from "@/lib/server/auth/account-changes";
import { listUsers } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";

/** Everyone who can sign in, oldest first (admins; what `playground user list --server …` prints). */
export const GET = handleRoute({ role: "admin" }, async () =>
  jsonAnswer(await listUsers((await getDatabase()).db)),
);

/** Adds a person: `{ email, name, role, password }` → 201 with the user (never the password). */
export const POST = handleRoute({ role: "admin" }, async (request: Request, _context, identity) => {
  const input = await readBody(request, addUserSchema);
  const actor = { id: identity.userId, email: identity.email };
  return jsonAnswer(await addUser(await getAuth(), (await getDatabase()).db, actor, input), {
    status: 201,
  });
});

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
