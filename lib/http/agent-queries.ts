import "server-only";
import { z } from "zod";
import { MAX_POLL_WAIT_SECONDS } from "@/lib/runtime";

/** `?wait=<seconds>`: how long a request may wait for something to do (0 answers at once). */
export const agentWaitQuerySchema = z
  .object({
    wait: z.coerce.number().min(0).max(MAX_POLL_WAIT_SECONDS).optional(),
    /** The `version` of the last answer acted on: answer at the next change, not before. */
    after: z
      .string()
      .regex(/^[0-9a-f]{16}$/, "must be the version of an answer")
      .optional(),
  })
  .strict();

/** The wait a request asked for, in ms, or `fallbackSeconds`. */
export function readWaitMs(query: { wait?: number | undefined }, fallbackSeconds: number): number {
  return Math.round((query.wait ?? fallbackSeconds) * 1_000);
}
