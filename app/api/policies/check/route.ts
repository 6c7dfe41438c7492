import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { checkPolicySchema } from "@/lib/http/policy-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { checkPolicy } from "@/lib/runtime";

/**
 * Checks a document exactly as publishing would (docs/policies.md#checked-like-code), without
 * storing anything: `{ ok: true }`, or `{ ok: false, problems: [{ line, path, message }] }`. The
 * policy page's editor asks it as the admin types.
 */
export const POST = handleRoute({ role: "admin" }, async (request: Request) => {
  const { document } = await readBody(request, checkPolicySchema);
  const checked = checkPolicy(document);
  return jsonAnswer(checked.ok ? { ok: true, problems: [] } : { ok: false, problems: checked.problems });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
