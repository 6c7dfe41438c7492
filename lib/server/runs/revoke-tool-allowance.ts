import "server-only";
import type { Identity } from "@/lib/server/auth/identity";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { getRunService } from "../server-context";

/**
 * Revokes a run's grant of a tool ("always allow") as the signed-in person:
 * from the run's next step its calls wait for a decision again. 404 when the
 * run has no such grant (or no such run).
 */
export async function revokeToolAllowance(runId: string, toolName: string, identity: Identity) {
  const service = await getRunService();
  const revoked = await service.revokeToolAllowance(runId, toolName, {
    actor: identity.name,
    actorId: identity.userId,
  });
  if (!revoked) throw RequestRefusal.of("not_found", `Run ${runId} has no grant of ${toolName} to revoke.`);
  return { revoked: toolName };
}
