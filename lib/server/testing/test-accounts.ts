import { getDatabase } from "@/lib/server/database";
import { AGENT_OWNER_ROLE, ROLES, type Role } from "@/lib/wire/roles";
import { createToken, createUser } from "../auth/accounts";
import { getAuth } from "../server-context";

export interface TestAccount {
  userId: string;
  name: string;
  email: string;
  token: string;
  /** `Authorization: Bearer` with the account's token, for requests to routes and actions. */
  headers: Record<string, string>;
}

/**
 * One user and API token per role on the process-wide database (install the
 * test database first): the identities route and action tests act as. The
 * `agent` account is an agent token of the least person who may own one.
 */
export async function createTestAccounts(roles: readonly Role[] = ROLES): Promise<Record<Role, TestAccount>> {
  const auth = await getAuth();
  const { db } = await getDatabase();
  const accounts: Partial<Record<Role, TestAccount>> = {};
  for (const role of roles) {
    const email = `${role}-${crypto.randomUUID().slice(0, 8)}@test.example`;
    const created = await createUser(auth, {
      email,
      name: `${role} tester`,
      password: "test-password-1",
      role: role === "agent" ? AGENT_OWNER_ROLE : role,
    });
    const { token } = await createToken(auth, db, {
      email,
      name: `${role} ${email.slice(role.length + 1, role.length + 9)}`,
      role,
    });
    accounts[role] = {
      userId: created.id,
      name: created.name,
      email,
      token,
      headers: { authorization: `Bearer ${token}` },
    };
  }
  return accounts as Record<Role, TestAccount>;
}
