import "server-only";
import { type ForkOrigin, quoteSentText, RunNotFoundError } from "@/lib/runtime";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { runIdSchema } from "./request-schemas";

/**
 * The step to fork from, as a request writes it (`?step=2`): a whole number,
 * 1 for the first step. Whether the run has that step is the run host's check
 * (`ForkStepOutOfRangeError`, 400).
 */
export function readForkStep(raw: string | null | undefined): number {
  if (raw === null || raw === undefined || raw === "") {
    throw RequestRefusal.invalid([
      { path: "step", message: "is required: the step to fork from, 1 for the first" },
    ]);
  }
  if (!/^[0-9]{1,6}$/.test(raw)) {
    throw RequestRefusal.invalid([
      {
        path: "step",
        message: `must be a whole number, 1 for the first step; got ${quoteSentText(raw)}`,
      },
    ]);
  }
  return Number(raw);
}

/** A fork's run id: what cannot be a run's id is refused as reading that run would be (404). */
export function readForkRunId(runId: string): string {
  if (!runIdSchema.safeParse(runId).success) throw new RunNotFoundError(quoteSentText(runId));
  return runId;
}

/** `?forkOf=<runId>&step=<n>` on `POST /api/runs`: the run and step the new run is a fork of, or null. */
export function readForkQuery(query: URLSearchParams): ForkOrigin | null {
  const runId = query.get("forkOf");
  const step = query.get("step");
  if (runId === null && step === null) return null;
  if (runId === null) {
    throw RequestRefusal.invalid([
      { path: "forkOf", message: "is required with step: the id of the run to fork from" },
    ]);
  }
  return { runId: readForkRunId(runId), step: readForkStep(step) };
}
