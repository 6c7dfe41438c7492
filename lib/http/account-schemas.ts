import { z } from "zod";
import { personNameSchema } from "@/lib/runtime";
import { ROLES } from "@/lib/wire/roles";

// What the admin page's server actions and the account routes (which the CLI uses with --server)
// accept: one definition, so a user or token made either way obeys the same limits.

const roleSchema = z.enum(ROLES);

/** As better-auth takes it (8 to 128 characters): a longer one was refused only as the user was made. */
const passwordSchema = z.string().min(8, "use at least 8 characters").max(128, "use at most 128 characters");

/** A person who can sign in (the password is hashed by better-auth and never stored or echoed). */
export const addUserSchema = z
  .object({
    email: z.email("enter an email address"),
    name: personNameSchema,
    role: roleSchema,
    password: passwordSchema,
  })
  .strict();

/** An API token for a person; without a role it acts with its owner's. */
export const createTokenSchema = z
  .object({ email: z.email(), name: z.string().trim().min(1).max(64), role: roleSchema.optional() })
  .strict();

/** A token's id (better-auth's, as listed): tokens are revoked by id, never by name. */
export const tokenIdSchema = z.string().regex(/^[\w-]{1,64}$/, "a token's id, as listed");

/** A person, named by their e-mail (as the admin page and the CLI name them). */
export const userEmailSchema = z.email("enter an email address");

/**
 * One change to someone's account (admins): a role, deactivation (`isActive:
 * false`) or reactivation, or a new password. One field at a time, so each
 * change is audited as what it is.
 */
export const changeUserSchema = z.union([
  z.object({ email: userEmailSchema, role: roleSchema }).strict(),
  z.object({ email: userEmailSchema, isActive: z.boolean() }).strict(),
  z.object({ email: userEmailSchema, password: passwordSchema }).strict(),
]);
export type ChangeUserInput = z.infer<typeof changeUserSchema>;

/** The body of `PATCH /api/users/[email]`: the change without the e-mail, which the path names. */
export const changeUserBodySchema = z.union([
  z.object({ role: roleSchema }).strict(),
  z.object({ isActive: z.boolean() }).strict(),
  z.object({ password: passwordSchema }).strict(),
]);

export const removeUserSchema = z.object({ email: userEmailSchema }).strict();

/** One's own new password, given the current one. */
export const changeOwnPasswordSchema = z
  .object({
    currentPassword: z.string().min(1, "enter your current password").max(128),
    newPassword: passwordSchema,
  })
  .strict();
