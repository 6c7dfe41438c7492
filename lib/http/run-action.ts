import "server-only";
import { headers } from "next/headers";
import type { z } from "zod";
import { findJsonValueProblem, formatIssuePath } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/identity";
import type { Role } from "@/lib/server/auth/roles";
import type { ActionResult } from "./action-result";
import { type ErrorBody, invalidRequestBody, toErrorBody } from "./error-response";
import { type ErrorCode, statusForCode } from "./error-table";
import { RequestRefusal } from "./refusal";
import { MAX_BODY_BYTES, measureUtf8Bytes } from "./request-limits";
import { requireIdentity } from "./require-identity";

export interface RunActionOptions<Input> {
  /** The least role allowed to call the action. */
  role: Role;
  /** The JSON text whose size counts against `MAX_BODY_BYTES` (default: the whole input as JSON). */
  bodyOf?(input: Input): string;
}

/**
 * The body of every server action: refuses a call without an `Origin` (Next
 * checks a present one against the host; a missing one is no browser's
 * same-site request), establishes who calls and that they hold
 * `options.role`, validates the input with `schema`, applies the one body
 * limit, runs `work`, and maps any error through the one error table, so the
 * browser gets a code and status, never a thrown message.
 */
export async function runAction<Schema extends z.ZodType, T>(
  schema: Schema,
  input: unknown,
  work: (input: z.infer<Schema>, identity: Identity) => Promise<T>,
  options: RunActionOptions<z.infer<Schema>>,
): Promise<ActionResult<T>> {
  const requestHeaders = await headers();
  if (!requestHeaders.get("origin")) {
    return refusal("forbidden", "Server actions are only taken from this app's own pages.");
  }
  let identity: Identity;
  try {
    identity = await requireIdentity(requestHeaders, options.role);
  } catch (error) {
    if (error instanceof RequestRefusal) return failure(error.status, error.body);
    throw error;
  }
  const problem = findJsonValueProblem(input);
  if (problem) {
    return failure(
      statusForCode("invalid_request"),
      invalidRequestBody([{ path: formatIssuePath(problem.path), message: problem.message }]),
    );
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: formatIssuePath(issue.path),
      message: issue.message,
    }));
    return failure(statusForCode("invalid_request"), invalidRequestBody(issues));
  }
  const body = options.bodyOf ? options.bodyOf(parsed.data) : JSON.stringify(parsed.data);
  if (measureUtf8Bytes(body) > MAX_BODY_BYTES) {
    return refusal("payload_too_large", `The body is larger than the limit of ${MAX_BODY_BYTES} bytes.`);
  }
  try {
    return { ok: true, data: await work(parsed.data, identity) };
  } catch (error) {
    const { status, body } = toErrorBody(error);
    return failure(status, body);
  }
}

function refusal(code: ErrorCode, message: string): ActionResult<never> {
  return failure(statusForCode(code), { error: { code, message }, pending: null });
}

function failure(status: number, body: ErrorBody): ActionResult<never> {
  return { ok: false, error: { ...body.error, status }, pending: body.pending };
}
