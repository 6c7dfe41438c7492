import "server-only";
import { RunNotFoundError } from "@/lib/runtime";
import { runIdSchema } from "./request-schemas";

/** The `[id]` of a run route, or a `not_found` error for anything that cannot be a run id. */
export async function readRunId(context: { params: Promise<{ id: string }> }): Promise<string> {
  const { id } = await context.params;
  if (!runIdSchema.safeParse(id).success) throw new RunNotFoundError(id);
  return id;
}
