import { z } from "zod";
import { RUN_STATUSES, type RunStatus } from "@/lib/runtime/run/run-types";

/*
 * The lists' filters and query strings, as the browser and the server both read
 * them; db/repositories implements the filters in SQL.
 */

/**
 * Where a page starts: after the row with this time (the database's own text
 * of it, to the microsecond; a JavaScript Date would round it and skip rows)
 * and id.
 */
export interface RowCursor {
  time: string | null;
  id: string;
}

/** Archived runs: left out (the default), listed with the rest, or the only ones listed (docs/housekeeping.md). */
export type ArchivedFilter = "hide" | "include" | "only";

/** Which waiting runs the inbox lists, and in which order of waiting time. */
export interface InboxFilter {
  archived?: ArchivedFilter;
  /** Runs whose pending turn has a call of this tool (exact name). */
  tool?: string;
  /** Part of the run's name, or the start of its id. */
  search?: string;
  /** Part of the name of the person who started the run. */
  startedBy?: string;
  /** Newest wait first (the default), or the longest wait first. */
  order?: "newest" | "oldest";
}

/** Which runs the runs list shows. */
export interface RunListFilter {
  archived?: ArchivedFilter;
  status?: RunStatus;
  /** Part of the run's name or its starter's name, or the start of its id. */
  search?: string;
}

/**
 * What a row of the audit records: a person's approval or denial, an expired wait, a grant's
 * automatic approval, a voided approval, or one approval counted toward a quorum (docs/policies.md#quorum).
 */
export const AUDIT_OUTCOMES = ["approved", "denied", "expired", "automatic", "voided", "counted"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Which audit rows to list. */
export interface AuditFilter {
  outcome?: AuditOutcome;
  /** Part of the decider's name or email. */
  actor?: string;
  /** The gated tool's exact name. */
  tool?: string;
  /** Part of the run's name, or the start of its id. */
  run?: string;
}

/** A form's empty field means "any": it is left out, not matched as an empty string. */
const optionalText = (max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.string().trim().max(max).optional(),
  );

const pageSize = (fallback: number) =>
  z.preprocess((value) => (value === undefined ? fallback : Number(value)), z.number().int().min(1).max(200));

/** Archived runs: `hide` (the default), `include`, or `only` (docs/housekeeping.md). */
const archivedParameter = z.preprocess(
  (value) => (value === "" ? undefined : value),
  z.enum(["hide", "include", "only"]).optional(),
);

/** `GET /api/inbox` and the inbox page: `?tool=&q=&startedBy=&order=newest|oldest&archived=&limit=&after=`. */
export const inboxQuerySchema = z.object({
  tool: optionalText(64),
  q: optionalText(200),
  startedBy: optionalText(200),
  order: z.preprocess((value) => (value === "" ? undefined : value), z.enum(["newest", "oldest"]).optional()),
  archived: archivedParameter,
  limit: pageSize(50),
  after: optionalText(200),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/** The inbox filter a query names. */
export function inboxFilterOf(query: InboxQuery): InboxFilter {
  return {
    tool: query.tool,
    search: query.q,
    startedBy: query.startedBy,
    order: query.order,
    archived: query.archived,
  };
}

/** `GET /api/runs` and the runs page: `?status=&q=&archived=&limit=&after=`. */
export const runListQuerySchema = z.object({
  status: z.preprocess((value) => (value === "" ? undefined : value), z.enum(RUN_STATUSES).optional()),
  archived: archivedParameter,
  q: optionalText(200),
  limit: pageSize(50),
  after: optionalText(200),
});
export type RunListQuery = z.infer<typeof runListQuerySchema>;

/** `GET /api/audit` and the audit page: `?outcome=&actor=&tool=&run=&limit=&before=&format=csv`. */
export const auditQuerySchema = z.object({
  outcome: z.preprocess((value) => (value === "" ? undefined : value), z.enum(AUDIT_OUTCOMES).optional()),
  actor: optionalText(200),
  tool: optionalText(64),
  run: optionalText(200),
  limit: pageSize(100),
  before: z.preprocess(
    (value) => (value === undefined || value === "" ? undefined : Number(value)),
    z.number().int().positive().optional(),
  ),
  format: z.preprocess((value) => (value === "" ? undefined : value), z.enum(["json", "csv"]).optional()),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** The escalation steps that fired (docs/notifications.md#escalation): the latest `limit`, or every one as CSV. */
export const escalationsQuerySchema = z.object({
  run: auditQuerySchema.shape.run,
  limit: pageSize(100),
  format: auditQuerySchema.shape.format,
});

/** The audit filter a query names. */
export function auditFilterOf(query: AuditQuery): AuditFilter {
  return { outcome: query.outcome, actor: query.actor, tool: query.tool, run: query.run };
}

/** A query string's parameters as the object these schemas read (the first value of a repeated one). */
export function queryObject(params: URLSearchParams | Record<string, string | string[] | undefined>) {
  const entries =
    params instanceof URLSearchParams
      ? [...params.keys()].map((key) => [key, params.get(key) ?? undefined] as const)
      : Object.entries(params).map(([key, value]) => [key, Array.isArray(value) ? value[0] : value] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}
