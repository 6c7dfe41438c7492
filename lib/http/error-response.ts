import "server-only";
import {
  DecisionRefusedError,
  InvalidScenarioError,
  type PendingTurn,
  UnreadableStateError,
} from "@/lib/runtime";
import { AccountError } from "@/lib/server/auth/accounts";
import { ERROR_STATUS, type ErrorCode, statusForCode } from "./error-table";

/** The one error body of every surface (SPEC §5). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; issues?: Array<{ path: string; message: string }> };
  pending: PendingTurn | null;
}

/** Maps any thrown value to a status and the SPEC §5 body; unknown errors are logged, not leaked. */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody } {
  const make = (code: ErrorCode, message: string, pending: PendingTurn | null = null, extra = {}) => ({
    status: statusForCode(code),
    body: { error: { code, message, ...extra }, pending },
  });
  if (DecisionRefusedError.isInstance(error) && isErrorCode(error.code)) {
    return make(error.code, error.message, error.pending);
  }
  if (UnreadableStateError.isInstance(error)) return make("unreadable_state", error.message);
  if (AccountError.isInstance(error)) return make(error.code, error.message);
  if (InvalidScenarioError.isInstance(error)) {
    return make("invalid_request", error.message, null, { issues: error.issues });
  }
  console.error("unexpected error while handling a request:", error);
  return make("internal_error", "Something went wrong on the server; it has been logged.");
}

export function errorResponse(error: unknown): Response {
  const { status, body } = toErrorBody(error);
  return Response.json(body, { status });
}

/** The 400 body naming every invalid field of a request (route bodies and server action input alike). */
export function invalidRequestBody(named: Array<{ path: string; message: string }>): ErrorBody {
  return {
    error: {
      code: "invalid_request",
      message: `Invalid request: ${named.map((issue) => `${issue.path || "(body)"}: ${issue.message}`).join("; ")}`,
      issues: named,
    },
    pending: null,
  };
}

export function invalidRequestResponse(named: Array<{ path: string; message: string }>): Response {
  return Response.json(invalidRequestBody(named), { status: statusForCode("invalid_request") });
}

/** A 404 with the one error body, for routes that exist only in some configurations. */
export function notFoundResponse(message: string): Response {
  return Response.json({ error: { code: "not_found", message }, pending: null } satisfies ErrorBody, {
    status: statusForCode("not_found"),
  });
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
