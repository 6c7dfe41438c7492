import {
  addUserSchema,
  changeOwnPasswordSchema,
  changeUserBodySchema,
  createTokenSchema,
} from "@/lib/http/account-schemas";
import type { ApiOperation } from "./api-operation";

/** People and their API tokens (docs/security.md); every change is audited. */
export const ACCOUNTS_OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    path: "/api/users",
    summary: "Every user",
    role: "admin",
    responses: { 200: { description: "The users (never a password)" } },
  },
  {
    method: "POST",
    path: "/api/users",
    summary: "Add a user (audited)",
    role: "admin",
    body: addUserSchema,
    responses: { 201: { description: "The user (never the password)" } },
    refusals: {
      409: "`account_exists`: an account has this e-mail, in any letter case (the message names it)",
    },
  },
  {
    method: "PATCH",
    path: "/api/users/[email]",
    summary: "Change a user's role, deactivate or reactivate them, or reset their password (audited)",
    role: "admin",
    body: changeUserBodySchema,
    responses: { 200: { description: "The user as changed" } },
    refusals: { 404: "No such user" },
  },
  {
    method: "DELETE",
    path: "/api/users/[email]",
    summary: "Remove a user with their sessions and tokens (audited)",
    role: "admin",
    responses: { 200: { description: "The user is gone" } },
    refusals: { 404: "No such user" },
  },
  {
    method: "POST",
    path: "/api/account/password",
    summary: "Change one's own password, given the current one (audited)",
    role: "viewer",
    body: changeOwnPasswordSchema,
    responses: { 200: { description: "`{ changed: true }`" } },
    refusals: {
      403: "The current password is not right",
      429: "Too many wrong passwords for this account (the sign-in budget): see Retry-After",
    },
  },
  {
    method: "GET",
    path: "/api/tokens",
    summary: "Every API token (never the secret)",
    role: "admin",
    responses: { 200: { description: "The tokens" } },
  },
  {
    method: "POST",
    path: "/api/tokens",
    summary: "Create an API token for a person, no higher than the creator's role",
    role: "admin",
    body: createTokenSchema,
    responses: { 201: { description: "`{ token, summary }`: the secret, shown this once" } },
  },
  {
    method: "DELETE",
    path: "/api/tokens/[id]",
    summary: "Revoke one token, by its id",
    role: "admin",
    responses: { 200: { description: "`{ revoked }`" } },
    refusals: { 404: "No such token" },
  },
];
