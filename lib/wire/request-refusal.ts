import type { z } from "zod";
import {
  findJsonValueProblem,
  formatIssuePath,
  listIssues,
  MAX_LISTED_ISSUES,
  type PathIssue,
} from "@/lib/runtime";
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

  /**
   * 400 `invalid_request` naming each invalid field (route bodies and server action input alike):
   * the first `MAX_LISTED_ISSUES` of `total` found, then how many more (`listIssues`).
   */
  static invalid(issues: ReadonlyArray<PathIssue>, total = issues.length): RequestRefusal {
    const listed = listIssues(issues, "(body)", total);
    return new RequestRefusal(statusForCode("invalid_request"), {
      error: { code: "invalid_request", message: `Invalid request: ${listed.line}`, issues: listed.issues },
      pending: null,
    });
  }
}

/**
 * Checks a parsed request value the way every surface does: first, without
 * recursion, that nothing nests too deep and every string can be stored; then
 * the schema. Throws a 400 {@link RequestRefusal} naming each path (the first ones, and how many
 * more), from `name` when the value is one named part of the request (a path segment, `email` of
 * `/api/users/<email>`) rather than its body.
 */
export function validateInput<Schema extends z.ZodType>(
  value: unknown,
  schema: Schema,
  name?: string,
): z.infer<Schema> {
  const pathOf = (path: ReadonlyArray<PropertyKey>) =>
    formatIssuePath(name === undefined ? path : [name, ...path]);
  const problem = findJsonValueProblem(value);
  if (problem) throw RequestRefusal.invalid([{ path: pathOf(problem.path), message: problem.message }]);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    // Only the issues the refusal lists are formatted: a body wrong in 100,000 places is answered
    // without formatting 100,000 paths.
    const found = parsed.error.issues;
    throw RequestRefusal.invalid(
      found
        .slice(0, MAX_LISTED_ISSUES)
        .map((issue) => ({ path: pathOf(issue.path), message: issue.message })),
      found.length,
    );
  }
  return parsed.data;
}
