import { z } from "zod";
import { personNameSchema } from "@/lib/runtime";
import { ROLES } from "@/lib/server/auth/roles";

// What the admin page's server actions and the account routes (which the CLI uses with --server)
// accept: one definition, so a user or token made either way obeys the same limits.

const roleSchema = z.enum(ROLES);

/** A person who can sign in (the password is hashed by better-auth and never stored or echoed). */
export const addUserSchema = z
  .object({
    email: z.email("enter an email address"),
    name: personNameSchema,
    role: roleSchema,
    password: z.string().min(8, "use at least 8 characters").max(200),
  })
  .strict();

/** An API token for a person; without a role it acts with its owner's. */
export const createTokenSchema = z
  .object({ email: z.email(), name: z.string().trim().min(1).max(64), role: roleSchema.optional() })
  .strict();

/** A token's id (better-auth's, as listed): tokens are revoked by id, never by name. */
export const tokenIdSchema = z.string().regex(/^[\w-]{1,64}$/, "a token's id, as listed");
