import type { PendingTurn } from "@/lib/runtime";
import type { ErrorCode } from "./error-table";

/**
 * A refusal as a server action returns it: the error table's code and status (error-table.ts),
 * never a thrown message.
 */
export interface ActionError {
  code: ErrorCode;
  status: number;
  message: string;
  issues?: Array<{ path: string; message: string }>;
  /** On an unexpected failure: the id its log line carries, for a person to quote. */
  requestId?: string;
}

/**
 * What every server action returns. A failure carries the same `pending` turn
 * as the HTTP body (error-table.ts), so a panel refused with 409 or 503 re-renders
 * the current turn without asking again.
 */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: ActionError; pending: PendingTurn | null };
