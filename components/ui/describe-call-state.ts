import type { CallStatus } from "@/lib/runtime/browser";

/** A call's state as a person reads it, and the key its badge is styled by. */
export interface CallStateLabel {
  text: string;
  /** A call status, or "awaiting" / "cancelled", which have a look of their own. */
  tone: string;
}

/**
 * The words for a call's state. A call a cancellation stopped while it ran is
 * "cancelled", in the muted look of the calls that never ran, not a red
 * error: nothing went wrong with the tool (the error message says it may
 * have done part of its work).
 */
export function describeCallState(
  call: { status: CallStatus; error: { code: string } | null },
  isAwaitingApproval: boolean,
): CallStateLabel {
  if (isAwaitingApproval) return { text: "awaiting approval", tone: "awaiting" };
  if (call.status === "error" && call.error?.code === "cancelled") {
    return { text: "cancelled", tone: "cancelled" };
  }
  switch (call.status) {
    case "pending":
      return { text: "queued", tone: "pending" };
    case "not_dispatched":
      return { text: "not dispatched", tone: "not_dispatched" };
    case "expired":
      return { text: "expired: nobody decided in time", tone: "expired" };
    default:
      return { text: call.status, tone: call.status };
  }
}
