import "server-only";
import type { Db } from "@/db/client";
import { listAuditRows } from "@/db/repositories/audit-queries";
import { capPersonName } from "@/lib/runtime";
import type { AuditFilter } from "@/lib/wire/list-filters";
import { toSafeCsv } from "./safe-csv";

export type AuditEntry = Awaited<ReturnType<typeof listAuditRows>>[number];

/** Rows as they are shown: a name recorded before names were limited is cut. */
async function listShownAuditRows(db: Db, page: Parameters<typeof listAuditRows>[1]): Promise<AuditEntry[]> {
  return (await listAuditRows(db, page)).map((row) => ({ ...row, actor: capPersonName(row.actor) }));
}

/** A page of the audit: newest first, and the id to pass as `before` for the next page. */
export interface AuditPage {
  items: Array<Omit<AuditEntry, "decidedAt"> & { decidedAt: string }>;
  nextBefore: number | null;
}

/** The most rows one CSV export holds; a filter narrows a larger audit. */
export const AUDIT_CSV_MAX_ROWS = 50_000;

export async function listAuditPage(
  db: Db,
  page: { limit: number; before?: number; filter: AuditFilter },
): Promise<AuditPage> {
  const rows = await listShownAuditRows(db, { ...page, limit: page.limit + 1 });
  const items = rows.slice(0, page.limit).map((row) => ({ ...row, decidedAt: row.decidedAt.toISOString() }));
  return { items, nextBefore: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
}

const CSV_COLUMNS = [
  "id",
  "decidedAt",
  "outcome",
  "scope",
  "actor",
  "actorEmail",
  "actorId",
  "runId",
  "runName",
  "batchIndex",
  "toolName",
  "turnDigest",
  "argumentsDigest",
  "editedDigest",
  "decisionId",
  "grantedBy",
  "reason",
  // Last, so readers of the earlier columns by position keep working.
  "runDeleted",
  // How a decision came (a decision link, signed in or the link alone) and the channel that sent it.
  "via",
  "viaChannel",
] as const;

/** The audit rows that match, as CSV that a spreadsheet reads as text (`toSafeCsv`). */
export async function exportAuditCsv(db: Db, filter: AuditFilter): Promise<string> {
  const rows = await listShownAuditRows(db, { limit: AUDIT_CSV_MAX_ROWS, filter });
  return toSafeCsv(
    rows.map((row) => ({ ...row, decidedAt: row.decidedAt.toISOString() })),
    CSV_COLUMNS,
  );
}
