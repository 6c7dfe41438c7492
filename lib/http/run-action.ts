import "server-only";
import type { z } from "zod";
import { formatIssuePath } from "@/lib/runtime";
import type { ActionResult } from "./action-result";
import { type ErrorBody, invalidRequestBody, toErrorBody } from "./error-response";
import { statusForCode } from "./error-table";

/**
 * The body of every server action: validates its input with `schema`, runs
 * `work`, and maps any error through the one error table (SPEC §5), so the
 * browser gets a code and status, never a thrown message.
 */
export async function runAction<Schema extends z.ZodType, T>(
  schema: Schema,
  input: unknown,
  work: (input: z.infer<Schema>) => Promise<T>,
): Promise<ActionResult<T>> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: formatIssuePath(issue.path),
      message: issue.message,
    }));
    return failure(statusForCode("invalid_request"), invalidRequestBody(issues));
  }
  try {
    return { ok: true, data: await work(parsed.data) };
  } catch (error) {
    const { status, body } = toErrorBody(error);
    return failure(status, body);
  }
}

function failure(status: number, body: ErrorBody): ActionResult<never> {
  return { ok: false, error: { ...body.error, status }, pending: body.pending };
}
