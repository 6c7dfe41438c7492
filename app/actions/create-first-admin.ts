"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { personNameSchema } from "@/lib/runtime";
import { AccountError, createFirstAdmin } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";
import type { ActionResult } from "@/lib/wire/action-result";
import { statusForCode } from "@/lib/wire/error-table";

const firstAdminSchema = z
  .object({
    name: personNameSchema,
    email: z.email("enter an email address"),
    password: z.string().min(8, "use at least 8 characters").max(200),
  })
  .strict();

/**
 * Creates the first administrator of a fresh database and signs them in.
 * Refused once any user exists, so it cannot take over an installed app.
 */
export async function createFirstAdminAction(
  input: z.infer<typeof firstAdminSchema>,
): Promise<ActionResult<null>> {
  const requestHeaders = await headers();
  const refuse = (code: AccountError["code"], message: string): ActionResult<null> => ({
    ok: false,
    error: { code, status: statusForCode(code), message },
    pending: null,
  });
  if (!requestHeaders.get("origin"))
    return refuse("forbidden", "Only this app's own setup page can do this.");
  const parsed = firstAdminSchema.safeParse(input);
  if (!parsed.success)
    return refuse(
      "invalid_request",
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
    );
  const auth = await getAuth();
  try {
    await createFirstAdmin(auth, (await getDatabase()).db, parsed.data);
  } catch (error) {
    if (AccountError.isInstance(error)) return refuse(error.code, error.message);
    throw error;
  }
  // nextCookies() sets the new session's cookie on this action's response.
  await auth.api.signInEmail({
    body: { email: parsed.data.email, password: parsed.data.password },
    headers: requestHeaders,
  });
  return { ok: true, data: null };
}
