"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  addUserSchema,
  changeOwnPasswordSchema,
  changeUserSchema,
  createTokenSchema,
  removeUserSchema,
  tokenIdSchema,
} from "@/lib/http/account-schemas";
import { serverAction } from "@/lib/http/server-action";
import { addUser, changeOwnPassword, changeUser, removeUser } from "@/lib/server/auth/account-changes";
import { AccountError, createToken, revokeToken } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";

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
  return serverAction(
    addUserSchema,
    input,
    async (user, identity) =>
      accountWork(async () => addUser(await getAuth(), (await getDatabase()).db, actorOf(identity), user)),
    { role: "admin" },
  );
}

const actorOf = (identity: { userId: string; email: string }) => ({
  id: identity.userId,
  email: identity.email,
});

/**
 * Changes someone's role, deactivates or reactivates them, or sets their
 * password (admins; audited). Never leaves no active admin.
 */
export async function changeUserAction(input: z.infer<typeof changeUserSchema>) {
  return serverAction(
    changeUserSchema,
    input,
    async (change, identity) =>
      accountWork(async () =>
        changeUser(await getAuth(), (await getDatabase()).db, actorOf(identity), change),
      ),
    { role: "admin" },
  );
}

/** Removes someone with their sessions and tokens (admins; audited; never oneself nor the last admin). */
export async function removeUserAction(input: z.infer<typeof removeUserSchema>) {
  return serverAction(
    removeUserSchema,
    input,
    async ({ email }, identity) =>
      accountWork(async () =>
        removeUser(await getAuth(), (await getDatabase()).db, actorOf(identity), { email }),
      ),
    { role: "admin" },
  );
}

/**
 * Changes the caller's own password, given the current one; their other
 * sessions end (audited). A token cannot do it: only a signed-in person.
 */
export async function changeOwnPasswordAction(input: z.infer<typeof changeOwnPasswordSchema>) {
  return serverAction(
    changeOwnPasswordSchema,
    input,
    async (passwords, identity) => {
      if (identity.via !== "session") {
        throw new AccountError("forbidden", "Sign in to change your password: a token cannot.");
      }
      await accountWork(async () =>
        changeOwnPassword(await getAuth(), (await getDatabase()).db, identity, passwords),
      );
      return { changed: true };
    },
    { role: "viewer" },
  );
}

/**
 * Creates a token, with a role no higher than its creator's; returns it this
 * once. Anyone signed in may create one for themself; only an admin for
 * someone else.
 */
export async function createTokenAction(input: z.infer<typeof createTokenSchema>) {
  return serverAction(
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
  return serverAction(
    revokeTokenSchema,
    input,
    async ({ id }, identity) =>
      accountWork(async () =>
        revokeToken((await getDatabase()).db, id, identity.role === "admin" ? undefined : identity.userId),
      ),
    { role: "viewer" },
  );
}
