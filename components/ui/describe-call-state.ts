import type { CallStatus } from "@/lib/runtime";

/** The words a person reads for a call's state. */
export function describeCallState(status: CallStatus, isAwaitingApproval: boolean): string {
  if (isAwaitingApproval) return "awaiting approval";
  switch (status) {
    case "pending":
      return "queued";
    case "not_dispatched":
      return "not dispatched";
    case "expired":
      return "expired: nobody decided in time";
    default:
      return status;
  }
}
