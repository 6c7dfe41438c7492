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

/** The runs list counts its matches up to this many; beyond it, it says "more than". */
export const RUN_COUNT_LIMIT = 10_000;

/** A page of the runs list: newest first, how many match, and where the next page starts. */
export interface RunListPage {
  items: RunListItem[];
  /** How many runs match, up to {@link RUN_COUNT_LIMIT}. */
  total: number;
  /** More runs than `total` match: counting stopped there, so a first page costs the same at any size. */
  totalCapped: boolean;
  nextCursor: string | null;
}

/** A page of every run that matches the filter, newest first, with the total and the next page's cursor. */
export async function listRunsPage(
  db: Db,
  page: { limit: number; after: RowCursor | null; filter: RunListFilter },
): Promise<RunListPage> {
  const [rows, total] = await Promise.all([
    listRuns(db, { limit: page.limit + 1, after: page.after, filter: page.filter }),
    countRuns(db, page.filter, RUN_COUNT_LIMIT + 1),
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
    total: Math.min(total, RUN_COUNT_LIMIT),
    totalCapped: total > RUN_COUNT_LIMIT,
    nextCursor: last ? encodePageCursor({ time: last.cursorTime, id: last.id }) : null,
  };
}
