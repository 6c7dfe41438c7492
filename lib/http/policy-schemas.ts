import { z } from "zod";
import { MAX_POLICY_CHARACTERS } from "@/lib/runtime/policy/policy-document";

/** `POST /api/policies`: a document to publish, live or in shadow (docs/policies.md#publishing-versions-and-shadow). */
export const publishPolicySchema = z
  .object({
    document: z.string().min(1).max(MAX_POLICY_CHARACTERS),
    mode: z.enum(["live", "shadow"]).default("live"),
  })
  .strict();

/**
 * `POST /api/policies/backtest`: a candidate, the time range of recorded runs to replay it over,
 * and optionally one tool's calls only and some runs only (by id).
 */
export const backtestPolicySchema = z
  .object({
    document: z.string().min(1).max(MAX_POLICY_CHARACTERS),
    since: z.iso.datetime({ offset: true }),
    until: z.iso.datetime({ offset: true }).optional(),
    tool: z.string().min(1).max(200).optional(),
    runIds: z.array(z.uuid()).min(1).max(500).optional(),
  })
  .strict();

/** `POST /api/policies/check`: a document to check as publish would, without publishing it. */
export const checkPolicySchema = z.object({ document: z.string().max(MAX_POLICY_CHARACTERS) }).strict();
