import type { ActionError } from "@/lib/wire/action-result";

/**
 * What a person should understand from a refused decision or cancellation
 * (docs/decisions.md#what-happens-to-a-decision-in-order).
 */
export function describeActionError(error: ActionError): {
  title: string;
  detail: string;
  canRetry: boolean;
} {
  switch (error.code) {
    case "stale_turn":
      return {
        title: "The turn changed",
        detail: "What you decided on is no longer the pending turn. The current turn is shown; decide again.",
        canRetry: false,
      };
    case "not_waiting":
      return {
        title: "Nothing to decide",
        detail: "This run is no longer waiting: it was already decided, cancelled, or it finished.",
        canRetry: false,
      };
    case "run_active":
      return {
        title: "The run is still going",
        detail: `${error.message} Cancel it first, or wait until it ends.`,
        canRetry: false,
      };
    case "not_auditable":
      return {
        title: "Your approval could not be recorded",
        detail: "The audit log is unavailable, so nothing ran. The run is still waiting; try again.",
        canRetry: true,
      };
    case "unreadable_state":
      return {
        title: "The run's saved state is unreadable",
        detail: `It cannot be resumed from here; an operator needs to inspect it. (${error.message})`,
        canRetry: false,
      };
    case "already_approved":
      return {
        title: "You have already approved this turn",
        detail: `${error.message} It runs once enough other people approve it.`,
        canRetry: false,
      };
    case "not_rule_approver":
      // The message names the policy rule and who it lets decide (docs/policies.md#who-may-decide).
      return { title: "Not yours to decide", detail: error.message, canRetry: false };
    case "invalid_request":
    case "forbidden":
    case "payload_too_large":
    case "unsupported_media_type":
      return { title: "The request was refused", detail: error.message, canRetry: false };
    case "not_found":
      return { title: "No such run", detail: error.message, canRetry: false };
    default:
      return {
        title: "Something went wrong on the server",
        detail: `It has been logged${error.requestId ? ` as request ${error.requestId}` : ""}. Try again in a moment.`,
        canRetry: true,
      };
  }
}
