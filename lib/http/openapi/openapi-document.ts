import { z } from "zod";
import { ERROR_STATUS } from "@/lib/wire/error-table";
import packageJson from "@/package.json";
import { ACCOUNTS_OPERATIONS } from "./accounts-operations";
import { AGENT_OPERATIONS } from "./agent-operations";
import type { ApiOperation, JsonSchema } from "./api-operation";
import { GRANT_OPERATIONS } from "./grant-operations";
import { POLICY_OPERATIONS } from "./policy-operations";
import { RUNS_OPERATIONS } from "./runs-operations";
import { SERVICE_OPERATIONS } from "./service-operations";

/**
 * Every route method the description states, by area. Left out on purpose:
 * better-auth's own endpoints (`/api/auth/[...all]`, docs/security.md lists
 * them), the fault-injection routes (`/api/faults*`), which exist only for
 * tests (`PLAYGROUND_FAULTS=1`), and the catch-all that answers a path no
 * route matches (`/api/[[...path]]`): it is the 404 of the paths not described.
 */
export const API_OPERATIONS: readonly ApiOperation[] = [
  ...RUNS_OPERATIONS,
  ...AGENT_OPERATIONS,
  ...ACCOUNTS_OPERATIONS,
  ...SERVICE_OPERATIONS,
  ...POLICY_OPERATIONS,
  ...GRANT_OPERATIONS,
];

/** Route paths under app/api the description leaves out, and why (docs/openapi.md). */
export const UNDESCRIBED_ROUTES: ReadonlyArray<{ path: RegExp; reason: string }> = [
  { path: /^\/api\/auth\/\[\.\.\.all\]$/, reason: "better-auth's endpoints (docs/security.md)" },
  { path: /^\/api\/faults(\/|$)/, reason: "test-only fault injection (PLAYGROUND_FAULTS=1)" },
  {
    path: /^\/api\/\[\[\.\.\.path\]\]$/,
    reason: "the 404 `not_found` of every path no route matches (docs/http-api.md#errors)",
  },
];

type Document = {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
};

/**
 * The HTTP API as an OpenAPI 3.1 document: each request body and query is
 * the JSON Schema (2020-12, OpenAPI 3.1's dialect) of the zod schema the
 * route validates with, as zod itself writes it (`z.toJSONSchema`, its input
 * side: what a client sends).
 */
export function buildOpenApiDocument(): Document {
  const document: Document = {
    openapi: "3.1.0",
    info: {
      title: "Tool Playground HTTP API",
      version: packageJson.version,
      description:
        "Every route answers errors with one body, `{ error: { code, message, issues? }, pending }` (ErrorBody). Send an API token as `Authorization: Bearer <token>`, or use a browser session. A method a path does not list is a 405 `method_not_allowed` with that body and an `Allow` header naming the methods it takes; `OPTIONS` on any path here is a 204 with the same `Allow` (docs/http-api.md#methods). A path under /api not described here is a 404 `not_found` with that body, for every method. docs/openapi.md.",
    },
    paths: {},
    components: {
      schemas: { ErrorBody: errorBodySchema() },
      securitySchemes: {
        apiToken: {
          type: "http",
          scheme: "bearer",
          description: "An API token (made on /account or /admin)",
        },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
    },
  };
  for (const operation of API_OPERATIONS) {
    const path = openApiPath(operation.path);
    document.paths[path] ??= {};
    document.paths[path][operation.method.toLowerCase()] = describeOperation(operation, document);
  }
  return document;
}

/** `/api/runs/[id]` → `/api/runs/{id}`. */
export function openApiPath(appPath: string): string {
  return appPath.replace(/\[(\w+)\]/g, "{$1}");
}

function describeOperation(operation: ApiOperation, document: Document): Record<string, unknown> {
  const operationId = operationIdOf(operation);
  const isGuarded = operation.role !== "stranger";
  const parameters = [
    ...[...operation.path.matchAll(/\[(\w+)\]/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    })),
    ...(operation.query ? queryParameters(operation.query) : []),
    ...(operation.queryParameters ?? []).map((parameter) => ({ ...parameter, in: "query", required: false })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = {
      description: response.description,
      content: { [response.mediaType ?? "application/json"]: { schema: response.schema ?? {} } },
    };
  }
  const refusals: Record<number, string> = {};
  if (operation.body || operation.query) refusals[400] = "`invalid_request`, naming each field";
  if (isGuarded) {
    refusals[401] = "`unauthenticated`: no session or token";
    refusals[403] = `\`forbidden\`: the ${operation.role} role is needed (or a request from another site)`;
  }
  if (operation.body) {
    refusals[413] = "`payload_too_large`";
    refusals[415] = "`unsupported_media_type`: not `application/json`, or compressed (`Content-Encoding`)";
  }
  if (isGuarded) refusals[503] = "`database_unavailable` (Retry-After)";
  Object.assign(refusals, operation.refusals);
  for (const [status, description] of Object.entries(refusals)) {
    responses[status] = {
      description,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
    };
  }
  return {
    operationId,
    summary: operation.summary,
    description: [operation.description, isGuarded ? `Least role: ${operation.role}.` : "Anyone may call it."]
      .filter(Boolean)
      .join(" "),
    "x-least-role": operation.role,
    security: isGuarded ? [{ apiToken: [] }, { session: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: componentOf(operation.body, `${operationId}Body`, document) },
            },
          },
        }
      : {}),
    responses,
  };
}

/** `POST /api/runs/[id]/decision` → `postRunsIdDecision`. */
function operationIdOf(operation: ApiOperation): string {
  const words = operation.path
    .replace(/^\/api\//, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return `${operation.method.toLowerCase()}${words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join("")}`;
}

/** What a client sends, as zod writes it: the input side, anything it cannot express left open. */
function toJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...described } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as JsonSchema;
  return described;
}

/**
 * A body schema as a named component, its `$defs` (recursive parts) moved
 * beside it under prefixed names, every reference pointed at the components.
 */
function componentOf(schema: z.ZodType, name: string, document: Document): JsonSchema {
  const { $defs, ...described } = toJsonSchema(schema) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rename = (reference: string) =>
    reference === "#"
      ? `#/components/schemas/${name}`
      : reference.replace(/^#\/\$defs\//, `#/components/schemas/${name}_`);
  const relink = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(relink);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === "$ref" && typeof inner === "string" ? rename(inner) : relink(inner),
      ]),
    );
  };
  for (const [key, definition] of Object.entries($defs ?? {})) {
    document.components.schemas[`${name}_${key}`] = relink(definition) as JsonSchema;
  }
  document.components.schemas[name] = relink(described) as JsonSchema;
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A query schema's properties as query parameters, none required: every one
 * this API reads has a default (a page size a preprocess fills in reads as
 * required to zod's input side).
 */
function queryParameters(schema: z.ZodType) {
  const described = toJsonSchema(schema) as { properties?: Record<string, JsonSchema> };
  return Object.entries(described.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: false,
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    schema: property,
  }));
}

/** The one error body (lib/wire/error-table.ts), its codes taken from the table itself. */
function errorBodySchema(): JsonSchema {
  return {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          code: { enum: Object.keys(ERROR_STATUS) },
          message: { type: "string" },
          issues: {
            type: "array",
            description:
              'The first 20 issues; when there were more, a last one at path "" says how many (docs/http-api.md#errors)',
            items: {
              type: "object",
              properties: { path: { type: "string" }, message: { type: "string" } },
              required: ["path", "message"],
            },
          },
          requestId: { type: "string" },
          details: { type: "object" },
        },
        required: ["code", "message"],
      },
      pending: { description: "The pending turn, when the refusal concerns one (stale_turn); else null" },
    },
    required: ["error", "pending"],
  };
}
