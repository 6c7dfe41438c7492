"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDatabase } from "@/db/client";
import { addUserSchema, createTokenSchema, tokenIdSchema } from "@/lib/http/account-schemas";
import { runAction } from "@/lib/http/run-action";
import { AccountError, createToken, createUser, revokeToken } from "@/lib/server/auth/accounts";
import { getAuth } from "@/lib/server/auth/auth";

const revokeTokenSchema = z.object({ id: tokenIdSchema }).strict();

/** Runs an account change; whatever happened, the admin page shows the lists as they now are. */
async function accountWork<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    revalidatePath("/admin");
    revalidatePath("/account");
  }
}

export async function addUserAction(input: z.infer<typeof addUserSchema>) {
  return runAction(
    addUserSchema,
    input,
    async (user) => accountWork(async () => createUser(await getAuth(), user)),
    { role: "admin" },
  );
}

/**
 * Creates a token, with a role no higher than its creator's; returns it this
 * once. Anyone signed in may create one for themself; only an admin for
 * someone else.
 */
export async function createTokenAction(input: z.infer<typeof createTokenSchema>) {
  return runAction(
    createTokenSchema,
    input,
    async (token, identity) => {
      if (identity.role !== "admin" && token.email.toLowerCase() !== identity.email.toLowerCase()) {
        throw new AccountError(
          "forbidden",
          "You can create tokens for yourself; an admin creates them for others.",
        );
      }
      return accountWork(async () =>
        createToken(await getAuth(), (await getDatabase()).db, { ...token, creatorRole: identity.role }),
      );
    },
    { role: "viewer" },
  );
}

/** Revokes a token by its id: an admin any, anyone else only their own. */
export async function revokeTokenAction(input: z.infer<typeof revokeTokenSchema>) {
  return runAction(
    revokeTokenSchema,
    input,
    async ({ id }, identity) =>
      accountWork(async () =>
        revokeToken((await getDatabase()).db, id, identity.role === "admin" ? undefined : identity.userId),
      ),
    { role: "viewer" },
  );
}
