import { getDatabase } from "@/db/client";
import { tokenNameSchema } from "@/lib/http/account-schemas";
import { handleRoute } from "@/lib/http/api-route";
import { validateInput } from "@/lib/http/refusal";
import { revokeToken } from "@/lib/server/auth/accounts";

/** Revokes a token by name (admins): it stops working at once, everywhere. `404` when there is none. */
export const DELETE = handleRoute(
  { role: "admin" },
  async (_request: Request, context: { params: Promise<{ name: string }> }) => {
    const name = validateInput((await context.params).name, tokenNameSchema);
    await revokeToken((await getDatabase()).db, name);
    return Response.json({ revoked: name });
  },
);
