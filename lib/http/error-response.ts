import "server-only";
import {
  AgentProtocolError,
  DecisionRefusedError,
  ForkStepOutOfRangeError,
  InvalidDecisionError,
  InvalidScenarioError,
  isStoreUnavailable,
  NotRuleApproverError,
  type PendingTurn,
  PolicyRefusedError,
  ToolServerUnavailableError,
  UnreadableStateError,
} from "@/lib/runtime";
import { AccountError } from "@/lib/server/auth/accounts";
import { isTransientDatabaseError } from "@/lib/server/database";
import { getLogger } from "@/lib/server/ops/logger";
import { RunHousekeepingError } from "@/lib/server/runs/run-housekeeping";
import {
  DATABASE_RETRY_AFTER_SECONDS,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  statusForCode,
} from "@/lib/wire/error-table";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { jsonAnswer } from "./small-bodies-uncompressed";

/**
 * Maps any thrown value to a status and the one error body (error-table.ts). An unknown error is
 * logged with the request's id and never leaked: the body says only that
 * something went wrong, and which request id to quote.
 */
export function toErrorBody(error: unknown, requestId?: string): { status: number; body: ErrorBody } {
  const make = (code: ErrorCode, message: string, pending: PendingTurn | null = null, extra = {}) => ({
    status: statusForCode(code),
    body: { error: { code, message, ...extra }, pending },
  });
  // Thrown and caught within one request's own bundle, so its class is the one imported here.
  if (error instanceof RequestRefusal) return { status: error.status, body: error.body };
  if (NotRuleApproverError.isInstance(error)) {
    return make(error.code, error.message, error.pending, {
      details: { rule: error.rule, policyVersion: error.policyVersion },
    });
  }
  if (InvalidDecisionError.isInstance(error)) {
    return make(error.code, error.message, error.pending, { issues: error.issues });
  }
  if (DecisionRefusedError.isInstance(error) && isErrorCode(error.code)) {
    return make(error.code, error.message, error.pending);
  }
  if (AgentProtocolError.isInstance(error) && isErrorCode(error.code)) {
    return make(error.code, error.message, null, { details: error.details });
  }
  if (PolicyRefusedError.isInstance(error)) {
    return make("policy_refused", error.message, null, { details: { problems: error.problems } });
  }
  if (UnreadableStateError.isInstance(error)) return make("unreadable_state", error.message);
  if (ToolServerUnavailableError.isInstance(error)) return make("tool_server_unavailable", error.message);
  if (AccountError.isInstance(error)) return make(error.code, error.message);
  if (ForkStepOutOfRangeError.isInstance(error)) {
    return make("invalid_request", error.message, null, { issues: error.issues });
  }
  if (RunHousekeepingError.isInstance(error)) return make(error.code, error.message);
  if (InvalidScenarioError.isInstance(error)) {
    return make("invalid_request", error.message, null, { issues: error.issues });
  }
  if (isDatabaseUnavailable(error)) {
    getLogger().warn({ requestId, err: error }, "the database is unreachable");
    return make(
      "database_unavailable",
      `The database is unreachable right now; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    );
  }
  getLogger().error({ requestId, err: error }, "unexpected error while handling a request");
  return requestId
    ? make(
        "internal_error",
        `Something went wrong on the server; it has been logged as request ${requestId}.`,
        null,
        { requestId },
      )
    : make("internal_error", "Something went wrong on the server; it has been logged.");
}

/** A store or driver error that says the database is out of reach (it passes), not that it refused. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isStoreUnavailable(error) || isTransientDatabaseError(error);
}

/** The headers an error response carries beyond its body: `Retry-After` on `database_unavailable`. */
export function errorHeaders(body: ErrorBody): Record<string, string> {
  return body.error.code === "database_unavailable"
    ? { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) }
    : {};
}

/** A 404 with the one error body, for routes that exist only in some configurations. */
export function notFoundResponse(message: string): Response {
  return jsonAnswer({ error: { code: "not_found", message }, pending: null } satisfies ErrorBody, {
    status: statusForCode("not_found"),
  });
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
