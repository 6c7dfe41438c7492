import { z } from "zod";
import type { AuditFilter } from "@/db/repositories/audit-queries";
import type { InboxFilter } from "@/db/repositories/run-queries";
import { RUN_STATUSES } from "@/db/schema";

/** A form's empty field means "any": it is left out, not matched as an empty string. */
const optionalText = (max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.string().trim().max(max).optional(),
  );

const pageSize = (fallback: number) =>
  z.preprocess((value) => (value === undefined ? fallback : Number(value)), z.number().int().min(1).max(200));

/** `GET /api/inbox` and the inbox page: `?tool=&q=&startedBy=&order=newest|oldest&limit=&after=`. */
export const inboxQuerySchema = z.object({
  tool: optionalText(64),
  q: optionalText(200),
  startedBy: optionalText(200),
  order: z.preprocess((value) => (value === "" ? undefined : value), z.enum(["newest", "oldest"]).optional()),
  limit: pageSize(50),
  after: optionalText(200),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/** The inbox filter a query names. */
export function inboxFilterOf(query: InboxQuery): InboxFilter {
  return { tool: query.tool, search: query.q, startedBy: query.startedBy, order: query.order };
}

/** `GET /api/runs` and the runs page: `?status=&q=&limit=&after=`. */
export const runListQuerySchema = z.object({
  status: z.preprocess((value) => (value === "" ? undefined : value), z.enum(RUN_STATUSES).optional()),
  q: optionalText(200),
  limit: pageSize(50),
  after: optionalText(200),
});
export type RunListQuery = z.infer<typeof runListQuerySchema>;

/** `GET /api/audit` and the audit page: `?outcome=&actor=&tool=&run=&limit=&before=&format=csv`. */
export const auditQuerySchema = z.object({
  outcome: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.enum(["approved", "denied", "expired", "automatic", "voided"]).optional(),
  ),
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
