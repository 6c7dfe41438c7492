import "server-only";
import type { Db } from "@/db/client";
import { type FiredEscalation, listFiredEscalations } from "@/db/repositories/escalation-audit";
import { toSafeCsv } from "./safe-csv";

/** A fired escalation step as the audit shows it (docs/notifications.md#escalation). */
export type EscalationEntry = Omit<FiredEscalation, "firedAt"> & { firedAt: string };

/** The most steps one CSV export holds, as for the decisions (`AUDIT_CSV_MAX_ROWS`). */
const ESCALATIONS_CSV_MAX_ROWS = 50_000;

/** The latest fired escalation steps, newest first; `run` as the audit's filter (name or id start). */
export async function listEscalations(
  db: Db,
  options: { limit: number; run?: string },
): Promise<EscalationEntry[]> {
  return (await listFiredEscalations(db, options)).map((row) => ({
    ...row,
    firedAt: row.firedAt.toISOString(),
  }));
}

const CSV_COLUMNS = [
  "id",
  "firedAt",
  "runId",
  "runName",
  "turnDigest",
  "channel",
  "step",
  "steps",
  "afterMinutes",
  "toUsers",
  "toRoles",
] as const;

/** The fired steps that match, as CSV; the group told is two cells of space-separated emails and roles. */
export async function exportEscalationsCsv(db: Db, filter: { run?: string }): Promise<string> {
  const rows = await listEscalations(db, { ...filter, limit: ESCALATIONS_CSV_MAX_ROWS });
  return toSafeCsv(
    rows.map(({ to, ...row }) => ({ ...row, toUsers: to.users.join(" "), toRoles: to.roles.join(" ") })),
    CSV_COLUMNS,
  );
}
