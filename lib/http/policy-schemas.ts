import { z } from "zod";
import { MAX_POLICY_CHARACTERS } from "@/lib/runtime/policy/policy-document";

/** `POST /api/policies`: a document to publish, live or in shadow (docs/policies.md#publishing-versions-and-shadow). */
export const publishPolicySchema = z
  .object({
    document: z.string().min(1).max(MAX_POLICY_CHARACTERS),
    mode: z.enum(["live", "shadow"]).default("live"),
  })
  .strict();

// Zod checks this even when the format failed: a text not in the format is that issue only.
function isFromYearOne(text: string): boolean {
  return !/^\d{4}-/.test(text) || new Date(text).getUTCFullYear() >= 1;
}
const FROM_YEAR_ONE = "must be in year 1 or later";

// An offset can carry 9999-12-31's last hours into year 10000 (UTC), which the query cannot hold.
function isUpToYear9999(text: string): boolean {
  return !/^\d{4}-/.test(text) || !(new Date(text).getUTCFullYear() > 9999);
}
const UP_TO_YEAR_9999 = "must be in year 9999 or earlier, in UTC";

/**
 * An instant a query names: ISO 8601 with its offset, on a real calendar day, from year 1 to 9999
 * in UTC (the database keeps no year 0, and 10000 is past what ISO's four digits say).
 */
export const isoInstantSchema = z.iso
  .datetime({ offset: true })
  .refine(isFromYearOne, FROM_YEAR_ONE)
  .refine(isUpToYear9999, UP_TO_YEAR_9999);

/** A calendar day in ISO 8601 (`2026-12-01`, from its start, UTC), from year 1 on. */
export const isoDaySchema = z.iso.date().refine(isFromYearOne, FROM_YEAR_ONE);

/** A time range's bound: an instant with its offset, or a calendar day (docs/policies.md#backtest). */
export const isoInstantOrDaySchema = z.union([isoInstantSchema, isoDaySchema], {
  error:
    "must be an ISO day (2026-12-01) or a date and time with its offset (2026-12-01T09:30:00Z), on the calendar",
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where a range from `since` starts: the instant, or the day's start (UTC). */
export function readRangeStart(since: string): Date {
  return new Date(since);
}

/** The last instant a bound can name (ISO's four-digit years); the database is not asked past it. */
const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Where a range until `until` ends, the end not included: the instant, or a day's end (the next
 * day's start, UTC), so that a day `until` takes in that whole day (9999-12-31's ends at the last
 * instant there is).
 */
export function readRangeEnd(until: string): Date {
  const at = new Date(until);
  if (!isoDaySchema.safeParse(until).success) return at;
  return new Date(Math.min(at.getTime() + DAY_MS, LAST_INSTANT_MS));
}

/** Where a range from `since` until `until` (optional: then until now) starts and ends, as the database is asked. */
export function readRange(range: { since: string; until?: string | undefined }): {
  since: Date;
  until?: Date;
} {
  return {
    since: readRangeStart(range.since),
    ...(range.until === undefined ? {} : { until: readRangeEnd(range.until) }),
  };
}

/**
 * `POST /api/policies/backtest`: a candidate, the time range of recorded runs to replay it over
 * (`since` and `until`, each an instant or a day; `since` not in the future and no later than
 * `until`), and optionally one tool's calls only and some runs only (by id).
 */
export const backtestPolicySchema = z
  .object({
    document: z.string().min(1).max(MAX_POLICY_CHARACTERS),
    since: isoInstantOrDaySchema,
    until: isoInstantOrDaySchema.optional(),
    tool: z.string().min(1).max(200).optional(),
    runIds: z.array(z.uuid()).min(1).max(500).optional(),
  })
  .strict()
  .superRefine(refuseSinceInFuture)
  .superRefine(refuseRangeBackwards);

/** How far back the disagreements look when not asked `since`. */
const DISAGREEMENTS_DEFAULT_DAYS = 7;

/**
 * `GET /api/policies/disagreements`' query: the range the calls were planned in, checked as the
 * backtest's is (docs/policies.md#publishing-versions-and-shadow). `since` defaults to a week ago
 * here, before the check, so an `until` earlier than that is refused too rather than answered empty.
 */
export const disagreementsQuerySchema = z
  .object({
    since: isoInstantOrDaySchema
      .optional()
      .describe(
        "An ISO day (from its start, UTC) or date and time with its offset, not in the future; default 7 days ago",
      ),
    until: isoInstantOrDaySchema
      .optional()
      .describe(
        "An ISO day (through its end, UTC) or date and time with its offset (that instant not included); default none",
      ),
  })
  .transform((query) => ({
    since: query.since ?? new Date(Date.now() - DISAGREEMENTS_DEFAULT_DAYS * DAY_MS).toISOString(),
    ...(query.until === undefined ? {} : { until: query.until }),
  }))
  .superRefine(refuseSinceInFuture)
  .superRefine(refuseRangeBackwards);

/**
 * Nothing is recorded after now, so a range starting later holds nothing: refused rather than
 * answered empty (a mistyped year, most likely). Now is named for a client whose clock runs ahead.
 */
function refuseSinceInFuture(range: { since: string }, context: z.RefinementCtx): void {
  const now = new Date();
  if (readRangeStart(range.since).getTime() <= now.getTime()) return;
  context.addIssue({
    code: "custom",
    path: ["since"],
    message: `is in the future, where nothing is recorded yet (since is ${range.since}, now ${now.toISOString()})`,
  });
}

/** A range that ends before it starts holds nothing: refused, naming both ends, rather than answered empty. */
function refuseRangeBackwards(
  range: { since: string; until?: string | undefined },
  context: z.RefinementCtx,
): void {
  if (range.until === undefined) return;
  const start = readRangeStart(range.since).getTime();
  const end = readRangeEnd(range.until).getTime();
  // A day `until` takes in that whole day (its end is the next day's start): a `since` at any
  // instant of it is not later.
  const isBackwards = isoDaySchema.safeParse(range.until).success ? start >= end : start > end;
  if (isBackwards) {
    context.addIssue({
      code: "custom",
      path: ["since"],
      message: `must not be later than until (since is ${range.since}, until ${range.until})`,
    });
  }
}

/** `POST /api/policies/check`: a document to check as publish would, without publishing it. */
export const checkPolicySchema = z.object({ document: z.string().max(MAX_POLICY_CHARACTERS) }).strict();
