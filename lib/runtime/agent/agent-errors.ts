import { RuntimeError } from "../errors";

/** Codes of the agent protocol's refusals (the HTTP layer maps each to a status). */
export type AgentProtocolErrorCode =
  | "not_found"
  | "not_waiting"
  | "turn_out_of_order"
  | "turn_conflict"
  | "turn_refused"
  | "report_conflict"
  | "release_closed"
  | "payload_too_large";

/**
 * A refusal of the agent protocol: nothing was stored. `details` says what
 * an agent acts on (the expected turn, the planner's problems, why a release
 * closed).
 */
export class AgentProtocolError extends RuntimeError {
  static override readonly brand: string = "AgentProtocolError";
  declare readonly code: AgentProtocolErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: AgentProtocolErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message);
    this.details = details;
  }
}
