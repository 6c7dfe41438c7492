import "server-only";
import type { Db } from "@/db/client";
import { countRuns, listRuns } from "@/db/repositories/run-list-queries";
import { capPersonName } from "@/lib/runtime";
import type { RowCursor, RunListFilter } from "@/lib/wire/list-filters";
import { encodePageCursor } from "./page-cursor";

/** One row of the runs list. */
export interface RunListItem {
  id: string;
  name: string;
  status: string;
  startedBy: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** When it was archived; null when it is not. */
  archivedAt: string | null;
  steps: number;
  completions: number;
}

/** A page of the runs list: newest first, how many match, and where the next page starts. */
export interface RunListPage {
  items: RunListItem[];
  total: number;
  nextCursor: string | null;
}

/** A page of every run that matches the filter, newest first, with the total and the next page's cursor. */
export async function listRunsPage(
  db: Db,
  page: { limit: number; after: RowCursor | null; filter: RunListFilter },
): Promise<RunListPage> {
  const [rows, total] = await Promise.all([
    listRuns(db, { limit: page.limit + 1, after: page.after, filter: page.filter }),
    countRuns(db, page.filter),
  ]);
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
  return {
    items: rows.slice(0, page.limit).map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status,
      startedBy: row.startedByName === null ? null : capPersonName(row.startedByName),
      createdAt: row.createdAt.toISOString(),
      finishedAt: row.finishedAt?.toISOString() ?? null,
      archivedAt: row.archivedAt?.toISOString() ?? null,
      steps: Number(row.steps),
      completions: row.modelCalls,
    })),
    total,
    nextCursor: last ? encodePageCursor({ time: last.cursorTime, id: last.id }) : null,
  };
}
