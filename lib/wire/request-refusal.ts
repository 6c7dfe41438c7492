import type { z } from "zod";
import { findJsonValueProblem, formatIssuePath } from "@/lib/runtime";
import { type ErrorBody, type ErrorCode, statusForCode } from "./error-table";

/** A request refused at the boundary, before any work: its status and the one error body. */
export class RequestRefusal {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** Response headers the refusal comes with (`Retry-After` on a 429). */
    readonly headers: Record<string, string> = {},
  ) {}

  static of(code: ErrorCode, message: string, headers?: Record<string, string>): RequestRefusal {
    return new RequestRefusal(statusForCode(code), { error: { code, message }, pending: null }, headers);
  }

  /** 400 `invalid_request` naming every invalid field (route bodies and server action input alike). */
  static invalid(issues: Array<{ path: string; message: string }>): RequestRefusal {
    const named = issues.map((issue) => `${issue.path || "(body)"}: ${issue.message}`).join("; ");
    return new RequestRefusal(statusForCode("invalid_request"), {
      error: { code: "invalid_request", message: `Invalid request: ${named}`, issues },
      pending: null,
    });
  }
}

/**
 * Checks a parsed request value the way every surface does: first, without
 * recursion, that nothing nests too deep and every string can be stored; then
 * the schema. Throws a 400 {@link RequestRefusal} naming each path.
 */
export function validateInput<Schema extends z.ZodType>(value: unknown, schema: Schema): z.infer<Schema> {
  const problem = findJsonValueProblem(value);
  if (problem)
    throw RequestRefusal.invalid([{ path: formatIssuePath(problem.path), message: problem.message }]);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw RequestRefusal.invalid(
      parsed.error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message })),
    );
  }
  return parsed.data;
}
