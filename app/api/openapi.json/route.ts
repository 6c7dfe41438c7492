import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { buildOpenApiDocument } from "@/lib/http/openapi/openapi-document";

// Built once: the routes and their schemas do not change while the server runs.
let document: ReturnType<typeof buildOpenApiDocument> | null = null;

/**
 * The HTTP API's OpenAPI 3.1 description, for anyone (like /api/health): it
 * says how to call the API and holds no data (docs/openapi.md, docs/security.md).
 */
export async function GET() {
  document ??= buildOpenApiDocument();
  return jsonAnswer(document, { headers: { "cache-control": "no-cache" } });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET });
