/**
 * Who may do what, from least to most: an agent (an API token an agent that
 * runs outside the playground sends, docs/agent-api.md, on behalf of an operator or above) drives
 * only the runs it opened itself and sees nothing of people's pages; a viewer sees runs and the inbox; an
 * operator also starts and cancels runs; an approver also decides; an admin
 * also manages users and tokens. Each role includes the ones before it.
 */
export const ROLES = ["agent", "viewer", "operator", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** The roles a person may hold: `agent` is for the API tokens outside agents send, never a person's. */
export const PERSON_ROLES = ["viewer", "operator", "approver", "admin"] as const;

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** True when `role` includes everything `needed` may do. */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * The least role whose holder's agent tokens work: an agent's run is a run its token's owner starts,
 * so an agent token never lets a person below an operator do what an operator does.
 */
export const AGENT_OWNER_ROLE = "operator" satisfies Role;

/** Why an agent token of a person below {@link AGENT_OWNER_ROLE} opens and drives nothing. */
export const AGENT_OWNER_RULE = `An agent token acts for its owner, who must be an ${AGENT_OWNER_ROLE} or above to open agent runs`;

/** True when a person holding `role` may use an agent token (and so be given one). */
export function mayOwnAgentToken(role: Role): boolean {
  return hasRole(role, AGENT_OWNER_ROLE);
}

/**
 * The roles a token of a person holding `ownerRole` may be made with, by someone holding
 * `creatorRole`: none above either, and `agent` only when both may start runs.
 */
export function tokenRolesFor(ownerRole: Role, creatorRole: Role = ownerRole): Role[] {
  return ROLES.filter(
    (role) =>
      hasRole(ownerRole, role) &&
      hasRole(creatorRole, role) &&
      (role !== "agent" || (mayOwnAgentToken(ownerRole) && mayOwnAgentToken(creatorRole))),
  );
}

/** The lesser of two roles (a token never acts above its owner). */
export function lesserRole(first: Role, second: Role): Role {
  return hasRole(first, second) ? second : first;
}
