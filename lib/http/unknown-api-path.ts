import "server-only";
import { getLogger } from "@/lib/server/ops/logger";
import { type ErrorBody, statusForCode } from "@/lib/wire/error-table";
import { readRequestId } from "./request-id";
import { jsonAnswer } from "./small-bodies-uncompressed";

/** How much of an unknown path the message repeats: enough to spot a typo, not a page of someone's text. */
const SHOWN_PATH_CHARACTERS = 200;

const encoder = new TextEncoder();

/**
 * The answer to any method on an /api path no route matches (`app/api/[[...path]]/route.ts`): a 404
 * `not_found` with the one error body, naming the path, for anyone. Next's own answer is its HTML
 * 404 page, which a client of a JSON API cannot read. It asks nobody who they are: that a path
 * does not exist says nothing a stranger could not read in `/api/openapi.json`.
 */
export function answerUnknownApiPath(request: Request): Response {
  const requestId = readRequestId(request.headers);
  const path = shownPath(new URL(request.url).pathname);
  const body: ErrorBody = {
    error: {
      code: "not_found",
      message: `There is no API route at ${path}: /api/openapi.json lists the routes there are.`,
    },
    pending: null,
  };
  getLogger().info(
    { requestId, method: request.method, path, status: 404, code: body.error.code },
    "request refused",
  );
  return jsonAnswer(body, {
    status: statusForCode("not_found"),
    headers: { "x-request-id": requestId },
  });
}

/**
 * The path as a message may repeat it: printable ASCII only, anything else percent-escaped as its
 * UTF-8 bytes (a control character, a bidirectional override that would turn the message around on
 * screen), cut short past {@link SHOWN_PATH_CHARACTERS}. A URL's pathname is escaped so already;
 * this holds whatever way the request was built.
 */
function shownPath(pathname: string): string {
  const printable = pathname.replace(/[^\x21-\x7e]/gu, (character) =>
    [...encoder.encode(character)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
      .join(""),
  );
  return printable.length > SHOWN_PATH_CHARACTERS
    ? `${printable.slice(0, SHOWN_PATH_CHARACTERS)}…`
    : printable;
}
