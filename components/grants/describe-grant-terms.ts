import { scenarioNameOfAgent } from "@/lib/runtime/browser";
import type { ListedGrant } from "@/lib/wire/listed-grant";

const SCOPES: Record<ListedGrant["scope"], (grant: ListedGrant) => string> = {
  run: () => "this run",
  agent: (grant) => {
    const agent = grant.agent ?? "";
    // A scenario is the agent by its content too, which its name alone does not show.
    const scenario = scenarioNameOfAgent(agent);
    if (scenario !== null) return `agent ${scenario} as it was when granted`;
    const name = agent.replace(/^agent:/, "");
    // An outside agent's name is only whose it is together with its owner's.
    return grant.agentOwnerName === null ? `agent ${name}` : `agent ${name} of ${grant.agentOwnerName}`;
  },
  // Its id is what is compared; a person reads the name. An account since deleted starts no runs.
  user: (grant) => `runs started by ${grant.starterName ?? "an account that no longer exists"}`,
  everyone: () => "everyone",
};

/** One grant in words: "read_file for this run, when args.path…, until 17:00, 2 of 5 uses, by alice". */
export function describeGrantTerms(grant: ListedGrant): string {
  const parts = [`for ${SCOPES[grant.scope](grant)}`];
  if (grant.condition) parts.push(`when ${grant.condition}`);
  parts.push(grant.expiresAt ? `until ${new Date(grant.expiresAt).toLocaleString()}` : "until revoked");
  parts.push(
    grant.maxUses === null
      ? `${grant.uses} ${grant.uses === 1 ? "use" : "uses"}`
      : `${grant.uses} of ${grant.maxUses} uses`,
  );
  if (grant.toolFingerprint) parts.push(`definition ${grant.toolFingerprint.slice(0, 8)}`);
  parts.push(`given by ${grant.createdByName}`);
  return parts.join(", ");
}
