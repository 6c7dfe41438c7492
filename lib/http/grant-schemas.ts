import { z } from "zod";
import { runIdSchema } from "./request-schemas";

/** GET /api/grants: the live grants, all of them or those scoped to one run. */
export const grantListQuerySchema = z
  .object({
    /** Only the grants scoped to this run ("this run"). */
    runId: runIdSchema.optional(),
  })
  .strict();
export type GrantListQuery = z.infer<typeof grantListQuerySchema>;

/** DELETE /api/grants/[id]: grant ids are UUIDs. */
export const grantIdSchema = z.uuid();
