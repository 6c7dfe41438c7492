import "server-only";
import { quoteSentText, RunNotFoundError } from "@/lib/runtime";
import { runIdSchema } from "./request-schemas";

/** What Next passes to the route handlers of `/api/runs/[id]/…`. */
export interface RunRouteContext {
  params: Promise<{ id: string }>;
}

/**
 * The `[id]` of a run route, or a `not_found` error for anything that cannot be a run id: the
 * message quotes what was sent, cut short and with invisible characters escaped (quoteSentText).
 */
export async function readRunId(context: RunRouteContext): Promise<string> {
  const { id } = await context.params;
  if (!runIdSchema.safeParse(id).success) throw new RunNotFoundError(quoteSentText(id));
  return id;
}
