import "server-only";
import type { AgentIdentity } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/identity";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { hasRole } from "@/lib/wire/roles";

/**
 * The agent behind a request: an API token made with the `agent` role (or an
 * operator's, who may start runs anyway). A signed-in browser is no agent,
 * and a viewer's token may not open runs. Its runs are the ones it opened.
 */
export function requireAgent(identity: Identity): AgentIdentity {
  if (identity.via !== "token" || !identity.token) {
    throw RequestRefusal.of(
      "forbidden",
      "The agent API takes an API token (Authorization: Bearer tp_…), made with --role agent.",
    );
  }
  if (identity.role !== "agent" && !hasRole(identity.role, "operator")) {
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
