import type { z } from "zod";
import type { Role } from "@/lib/wire/roles";

/** A JSON Schema (2020-12, which OpenAPI 3.1 uses) written by hand, for what no route schema describes. */
export type JsonSchema = Record<string, unknown>;

/**
 * One route method as the OpenAPI description states it (docs/openapi.md).
 * The request's shape is the very zod schema the route validates with; the
 * rest (who may, what comes back) is said here, next to the other routes of
 * its area. lib/http/openapi/openapi-routes.test.ts checks this table against
 * the route files under app/api.
 */
export interface ApiOperation {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path as app/ spells it: `/api/runs/[id]`. */
  path: string;
  summary: string;
  description?: string;
  /** The least role (docs/security.md), or `stranger` for a route anyone may call. */
  role: Role | "stranger";
  /** The JSON body's schema: what `readBody` validates with. */
  body?: z.ZodType;
  /** The query's schema: what `readQuery` validates with. */
  query?: z.ZodType;
  /** Query parameters a route reads by hand, without a schema. */
  queryParameters?: Array<{ name: string; description: string; schema: JsonSchema }>;
  /** Each success status and what it carries. */
  responses: Record<number, { description: string; mediaType?: string; schema?: JsonSchema }>;
  /** Refusals particular to this route (beyond 400, 401, 403 and 503, which every guarded route may give). */
  refusals?: Record<number, string>;
}

/** A JSON body of any shape (the report, the view…): described in docs/, not here. */
export const jsonObject: JsonSchema = { type: "object" };
