import "server-only";
import type { AgentIdentity } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/identity";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { AGENT_OWNER_ROLE, AGENT_OWNER_RULE, hasRole, mayOwnAgentToken } from "@/lib/wire/roles";

/**
 * The agent behind a request: an API token made with the `agent` role (or an
 * operator's, who may start runs anyway), whose owner may start runs now. A
 * signed-in browser is no agent, and neither a viewer's token nor an agent
 * token of a viewer (however it was made, or if its owner was demoted since)
 * may open or drive runs. Its runs are the ones it opened.
 */
export function requireAgent(identity: Identity): AgentIdentity {
  if (identity.via !== "token" || !identity.token) {
    throw RequestRefusal.of(
      "forbidden",
      "The agent API takes an API token (Authorization: Bearer tp_…), made with --role agent.",
    );
  }
  // The owner's current role, not the token's: an `agent` token ranks below a viewer, so it alone limits nothing here.
  if (!mayOwnAgentToken(identity.personRole)) {
    throw RequestRefusal.of(
      "forbidden",
      `${AGENT_OWNER_RULE}; this token's owner is ${identity.personRole}.`,
    );
  }
  if (identity.role !== "agent" && !hasRole(identity.role, AGENT_OWNER_ROLE)) {
    throw RequestRefusal.of(
      "forbidden",
      `This needs a token made with the agent role (or operator); the token sent is limited to ${identity.role}.`,
    );
  }
  return {
    tokenId: identity.token.id,
    tokenName: identity.token.name,
    ownerId: identity.userId,
    ownerName: identity.name,
  };
}

/** Whether {@link requireAgent} lets `identity` through: what an agent's open stream re-checks. */
export function mayActAsAgent(identity: Identity): boolean {
  try {
    requireAgent(identity);
    return true;
  } catch {
    return false;
  }
}
