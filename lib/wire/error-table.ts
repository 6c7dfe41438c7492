/**
 * The one table from error code to HTTP status: a decision's refusals
 * (docs/decisions.md#what-happens-to-a-decision-in-order) and every other.
 * Route handlers and server actions both map errors through it; the zod enum of codes is derived
 * from it, so a new code cannot be added without its status.
 */
import { z } from "zod";
import type { PendingTurn } from "@/lib/runtime";

export const ERROR_STATUS = {
  stale_turn: 409,
  turn_out_of_order: 409,
  turn_conflict: 409,
  turn_refused: 422,
  policy_refused: 422,
  report_conflict: 409,
  release_closed: 409,
  not_waiting: 409,
  already_approved: 409,
  account_exists: 409,
  run_active: 409,
  not_auditable: 503,
  tool_server_unavailable: 503,
  database_unavailable: 503,
  unreadable_state: 422,
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_rule_approver: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_streams: 429,
  too_many_attempts: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const errorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

export function statusForCode(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** Seconds a client is asked to wait (`Retry-After`) before trying again after `database_unavailable`. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The one error body of every surface. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    issues?: Array<{ path: string; message: string }>;
    /** On an unexpected failure: the id its log line carries, for a person to quote. */
    requestId?: string;
    /**
     * What an agent acts on (docs/agent-api.md): the expected turn, the planner's problems, why a
     * release closed.
     */
    details?: Record<string, unknown>;
  };
  pending: PendingTurn | null;
}
