import "server-only";
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { formatIssuePath } from "@/lib/runtime";

/**
 * An operator's JSON configuration from `<variable>` or the file named by
 * `<variable>_FILE`, checked with `schema`. Unset is `{ value: null }`; a
 * configuration that cannot be read configures nothing and says why.
 */
export function readJsonConfig<Schema extends z.ZodType>(
  env: Record<string, string | undefined>,
  variable: string,
  schema: Schema,
): { value: z.infer<Schema> | null; problem: string | null } {
  const fileVariable = `${variable}_FILE`;
  let text = env[variable];
  const source = text ? variable : `${fileVariable} (${env[fileVariable]})`;
  if (!text && env[fileVariable]) {
    try {
      // The file is the operator's, named at run time: not for the build to trace. Without the comment
      // (Turbopack's), the tracer took the path for "any file of the project" and listed README, docs/,
      // e2e/ and the embedded database's folder among the files of every route that reads a config.
      text = readFileSync(/* turbopackIgnore: true */ env[fileVariable] ?? "", "utf8");
    } catch (error) {
      return {
        value: null,
        problem: `${source} cannot be read: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
      };
    }
  }
  if (!text) return { value: null, problem: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { value: null, problem: `${source} is not valid JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
    return { value: null, problem: `${source} is invalid: ${issues.join("; ")}` };
  }
  return { value: parsed.data, problem: null };
}
