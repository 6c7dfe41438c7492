import "server-only";
import type { z } from "zod";
import { formatIssuePath } from "@/lib/runtime";
import { queryObject } from "../http/list-queries";

/**
 * A list page's query from its address. A page never fails on a bad address:
 * what cannot be read is named in `problem` and the list is shown unfiltered.
 */
export function readListQuery<Schema extends z.ZodType>(
  schema: Schema,
  searchParams: Record<string, string | string[] | undefined>,
): { query: z.infer<Schema>; problem: string | null } {
  const parsed = schema.safeParse(queryObject(searchParams));
  if (parsed.success) return { query: parsed.data, problem: null };
  const problem = parsed.error.issues
    .map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`)
    .join("; ");
  return { query: schema.parse({}), problem };
}
