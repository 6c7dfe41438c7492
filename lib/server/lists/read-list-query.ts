import "server-only";
import type { z } from "zod";
import { findJsonValueProblem, formatIssuePath } from "@/lib/runtime";
import { queryObject } from "@/lib/wire/list-filters";

/**
 * A list page's query from its address. A page never fails on a bad address:
 * what cannot be read is named in `problem` and the list is shown unfiltered.
 */
export function readListQuery<Schema extends z.ZodType>(
  schema: Schema,
  searchParams: Record<string, string | string[] | undefined>,
): { query: z.infer<Schema>; problem: string | null } {
  const values = queryObject(searchParams);
  // What the database cannot store (a NUL character), it cannot search for either.
  const unstorable = findJsonValueProblem(values);
  if (unstorable) {
    return { query: schema.parse({}), problem: `${formatIssuePath(unstorable.path)}: ${unstorable.message}` };
  }
  const parsed = schema.safeParse(values);
  if (parsed.success) return { query: parsed.data, problem: null };
  const problem = parsed.error.issues
    .map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`)
    .join("; ");
  return { query: schema.parse({}), problem };
}
