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

/**
 * An instant a query names: ISO 8601 with its offset, on a real calendar day, from year 1 on (the
 * database keeps no year 0, and 10000 is past what ISO's four digits say).
 */
export const isoInstantSchema = z.iso.datetime({ offset: true }).refine(isFromYearOne, FROM_YEAR_ONE);

/** A calendar day in ISO 8601 (`2026-12-01`, from its start, UTC), from year 1 on. */
export const isoDaySchema = z.iso.date().refine(isFromYearOne, FROM_YEAR_ONE);

/**
 * `POST /api/policies/backtest`: a candidate, the time range of recorded runs to replay it over,
 * and optionally one tool's calls only and some runs only (by id).
 */
export const backtestPolicySchema = z
  .object({
    document: z.string().min(1).max(MAX_POLICY_CHARACTERS),
    since: isoInstantSchema,
    until: isoInstantSchema.optional(),
    tool: z.string().min(1).max(200).optional(),
    runIds: z.array(z.uuid()).min(1).max(500).optional(),
  })
  .strict();

/** `POST /api/policies/check`: a document to check as publish would, without publishing it. */
export const checkPolicySchema = z.object({ document: z.string().max(MAX_POLICY_CHARACTERS) }).strict();
