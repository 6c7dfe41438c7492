/**
 * The client's one error type (docs/agents.md): a stable `code` an agent
 * branches on, whatever the server's own code or the transport's failure.
 */

/**
 * - `refused`: the server refused the turn whole (nothing stored); `message` is the repair notice for the model.
 * - `stale`: the request answers a state the run has left (another turn is expected, the turn was sent with
 *   other content, a call was reported differently, the run has ended).
 * - `lapsed`: a release's lease lapsed before its report; the server released the call again or settled it.
 * - `cancelled`: the run or its turn was cancelled (by a person, `run.cancel()`, or the caller's AbortSignal).
 * - `failed`: the run ended FAILED.
 * - `unavailable`: the server answered 503 (or not at all) on every retry.
 * - `rejected`: any other refusal (bad input, unauthenticated, forbidden, not found, too large).
 */
export type AgentClientErrorCode =
  | "refused"
  | "stale"
  | "lapsed"
  | "cancelled"
  | "failed"
  | "unavailable"
  | "rejected";

export class AgentClientError extends Error {
  override readonly name = "AgentClientError";
  readonly code: AgentClientErrorCode;
  /** The server's error code (`turn_refused`, `release_closed`, …), when the server answered. */
  readonly serverCode: string | null;
  /** The HTTP status, when the server answered. */
  readonly status: number | null;
  /** What the server said an agent acts on: `problems`, `expectedTurn`, `reason`, … */
  readonly details: Record<string, unknown>;

  constructor(
    code: AgentClientErrorCode,
    message: string,
    extra: {
      serverCode?: string | null;
      status?: number | null;
      details?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    this.serverCode = extra.serverCode ?? null;
    this.status = extra.status ?? null;
    this.details = extra.details ?? {};
  }
}

export function isAgentClientError(error: unknown, code?: AgentClientErrorCode): error is AgentClientError {
  return error instanceof AgentClientError && (code === undefined || error.code === code);
}

/** The client code of a server refusal (docs/agent-api.md lists the server's codes). */
export function clientCodeOf(serverCode: string, details: Record<string, unknown>): AgentClientErrorCode {
  switch (serverCode) {
    case "turn_refused":
      return "refused";
    case "turn_out_of_order":
    case "turn_conflict":
    case "report_conflict":
    case "not_waiting":
      return "stale";
    case "release_closed":
      return details.reason === "lapsed" ? "lapsed" : "cancelled";
    case "database_unavailable":
    case "tool_server_unavailable":
    case "not_auditable":
      return "unavailable";
    default:
      return "rejected";
  }
}

/** The error a cancelled wait or execution throws. */
export function cancelledError(reason: unknown): AgentClientError {
  if (isAgentClientError(reason)) return reason;
  return new AgentClientError("cancelled", "Cancelled by the caller's AbortSignal.", { cause: reason });
}
