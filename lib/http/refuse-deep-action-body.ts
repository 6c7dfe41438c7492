import { MAX_JSON_DEPTH, measureJsonDepth } from "@/lib/runtime/json-limits";
import type { ErrorBody } from "@/lib/wire/error-table";
import { jsonAnswer } from "./small-bodies-uncompressed";

/**
 * React decodes a server action's arguments, recursively, before the action
 * (and `serverAction`'s checks) runs: arguments nested 100,000 deep overflow its
 * stack, a RangeError and a 500 instead of the 400 every other deep body
 * gets. So the proxy measures an action's body first, without recursion.
 * The bound is looser than `MAX_JSON_DEPTH` (React wraps arguments in a few
 * levels of its own): anything deeper could never pass `serverAction`, and
 * anything shallower still gets its 400 there, naming the field.
 */
export const MAX_ACTION_BODY_DEPTH = 2 * MAX_JSON_DEPTH;

/** A 400 for a server action call whose body nests too deep to decode; null for any other request. */
export async function refuseDeepActionBody(request: Request): Promise<Response | null> {
  if (request.method !== "POST" || !request.headers.has("next-action")) return null;
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  // A form's fields are each decoded on their own; any other body is one encoded reply.
  const parts =
    mediaType === "multipart/form-data"
      ? [...(await request.clone().formData()).values()].filter((value) => typeof value === "string")
      : [await request.clone().text()];
  if (parts.every((part) => measureJsonDepth(part) <= MAX_ACTION_BODY_DEPTH)) return null;
  const message = `nests deeper than ${MAX_JSON_DEPTH} levels`;
  const body: ErrorBody = {
    error: {
      code: "invalid_request",
      message: `Invalid request: (body): ${message}`,
      issues: [{ path: "", message }],
    },
    pending: null,
  };
  return jsonAnswer(body, { status: 400 });
}
