import "server-only";
import type { Db } from "@/db/client";
import { listFiredEscalations } from "@/db/repositories/escalation-audit";

/** A fired escalation step as the audit shows it (docs/notifications.md#escalation). */
export type EscalationEntry = Omit<Awaited<ReturnType<typeof listFiredEscalations>>[number], "firedAt"> & {
  firedAt: string;
};

/** The latest fired escalation steps, newest first. */
export async function listEscalations(db: Db, limit: number): Promise<EscalationEntry[]> {
  return (await listFiredEscalations(db, { limit })).map((row) => ({
    ...row,
    firedAt: row.firedAt.toISOString(),
  }));
}
