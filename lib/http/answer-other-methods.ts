import "server-only";
import { getLogger } from "@/lib/server/ops/logger";
import { type ErrorBody, statusForCode } from "@/lib/wire/error-table";
import { readRequestId } from "./request-id";
import { jsonAnswer } from "./small-bodies-uncompressed";

/** The methods a route file may export, as Next takes them, in the order `Allow` lists them. */
export const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** What {@link answerOtherMethods} makes, one per method the route does not take. */
export type OtherMethodAnswer = (request: Request) => Response;

/** The methods a route answers for itself: what it takes but HEAD where GET gives it. */
type AnsweredMethods<Taken> = Exclude<
  RouteMethod,
  keyof Taken | ("GET" extends keyof Taken ? "HEAD" : never)
>;

/** Marks the answers made here (by brand, not identity: a server bundle may load this module twice). */
const OTHER_METHOD_ANSWER = Symbol.for("tool-playground.otherMethodAnswer");

/**
 * The answers of a route to every method it does not take, for the route file to export beside its
 * handlers: `export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });`.
 * Each is a 405 `method_not_allowed` with the one error body and `Allow` naming what the route
 * takes; OPTIONS is a 204 with the same `Allow`. Next's own answer to such a method is a bare 405
 * with no body and no `Allow`; and once a route exports these, Next's OPTIONS would list them as
 * taken, so OPTIONS is answered here too. HEAD is left to Next (its GET without the body) where the
 * route takes GET, and answered with the 405 where it does not. Neither asks who is calling: what a
 * route takes is public (`/api/openapi.json`).
 *
 * `app/other-methods.test.ts` checks every route file under app/ exports them all, with its own
 * methods named.
 */
export function answerOtherMethods<Taken extends Partial<Record<RouteMethod, unknown>>>(
  taken: Taken,
): Record<AnsweredMethods<Taken>, OtherMethodAnswer> {
  const isAnsweredByRoute = (method: RouteMethod) =>
    taken[method] !== undefined || (method === "HEAD" && taken.GET !== undefined);
  const allow = ROUTE_METHODS.filter((method) => isAnsweredByRoute(method) || method === "OPTIONS").join(
    ", ",
  );
  const answers: Partial<Record<RouteMethod, OtherMethodAnswer>> = {};
  for (const method of ROUTE_METHODS) {
    if (isAnsweredByRoute(method)) continue;
    const answer: OtherMethodAnswer =
      method === "OPTIONS"
        ? (request) =>
            new Response(null, {
              status: 204,
              headers: { allow, "x-request-id": readRequestId(request.headers) },
            })
        : (request) => refuseMethod(request, allow);
    answers[method] = Object.assign(answer, { [OTHER_METHOD_ANSWER]: true });
  }
  return answers as Record<AnsweredMethods<Taken>, OtherMethodAnswer>;
}

/** Whether a route file's export is one of {@link answerOtherMethods}'s answers, not a handler of its own. */
export function isOtherMethodAnswer(value: unknown): boolean {
  return typeof value === "function" && OTHER_METHOD_ANSWER in value;
}

function refuseMethod(request: Request, allow: string): Response {
  const requestId = readRequestId(request.headers);
  const body: ErrorBody = {
    error: {
      code: "method_not_allowed",
      message: `The method ${request.method} is not one this route takes: ${allow}.`,
    },
    pending: null,
  };
  getLogger().info(
    {
      requestId,
      method: request.method,
      path: new URL(request.url).pathname,
      status: 405,
      code: body.error.code,
    },
    "request refused",
  );
  return jsonAnswer(body, {
    status: statusForCode("method_not_allowed"),
    headers: { allow, "x-request-id": requestId },
  });
}
