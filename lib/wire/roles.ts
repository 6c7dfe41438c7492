/**
 * Who may do what, from least to most: an agent (an API token an agent that
 * runs outside the playground sends, docs/agent-api.md) drives only the runs
 * it opened itself and sees nothing of people's pages; a viewer sees runs and the inbox; an
 * operator also starts and cancels runs; an approver also decides; an admin
 * also manages users and tokens. Each role includes the ones before it.
 */
export const ROLES = ["agent", "viewer", "operator", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** The roles a person may hold: `agent` is for the API tokens outside agents send, never a person's. */
export const PERSON_ROLES = ["viewer", "operator", "approver", "admin"] as const;

/** What each role adds, for messages that say which role is needed. */
export const ROLE_ABILITIES: Record<Role, string> = {
  agent: "open and drive its own agent runs",
  viewer: "see runs and the inbox",
  operator: "start and cancel runs",
  approver: "approve and deny",
  admin: "manage users and tokens",
};

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** True when `role` includes everything `needed` may do. */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The lesser of two roles (a token never acts above its owner). */
export function lesserRole(first: Role, second: Role): Role {
  return hasRole(first, second) ? second : first;
}
