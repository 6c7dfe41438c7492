"use server";

import { z } from "zod";
import { grantIdSchema } from "@/lib/http/grant-schemas";
import { serverAction } from "@/lib/http/server-action";
import { getDatabase } from "@/lib/server/database";
import { revokeGrant } from "@/lib/server/grants/grants";

const revokeGrantInputSchema = z.object({ grantId: grantIdSchema }).strict();

/** Revokes a scoped grant as the signed-in approver: only its giver or an admin (docs/policies.md#grants). */
export async function revokeGrantAction(input: z.infer<typeof revokeGrantInputSchema>) {
  return serverAction(
    revokeGrantInputSchema,
    input,
    async ({ grantId }, identity) => revokeGrant((await getDatabase()).db, grantId, identity),
    { role: "approver" },
  );
}
