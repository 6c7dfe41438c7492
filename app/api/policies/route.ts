import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { publishPolicySchema } from "@/lib/http/policy-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { getDatabase } from "@/lib/server/database";
import { listPolicyVersions, publishPolicy } from "@/lib/server/policies/policies";

/** Every published version of the approval policy, newest first (docs/policies.md). */
export const GET = handleRoute({ role: "admin" }, async () =>
  jsonAnswer(await listPolicyVersions((await getDatabase()).db)),
);

/**
 * Publishes a version, live or in shadow (admins only): `{ document, mode }` → 201 with the stored
 * version, or 422 `policy_refused` with every problem and its line.
 */
export const POST = handleRoute({ role: "admin" }, async (request: Request, _context, identity) => {
  const input = await readBody(request, publishPolicySchema);
  const stored = await publishPolicy(
    (await getDatabase()).db,
    { id: identity.userId, name: identity.name },
    input,
  );
  return jsonAnswer(stored, { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
