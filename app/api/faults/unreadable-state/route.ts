import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { notFoundResponse } from "@/lib/http/error-response";
import { unreadableStateRequestSchema } from "@/lib/http/request-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import {
  FAULT_INJECTION_OFF,
  isFaultInjectionEnabled,
  makeWaitingStateUnreadable,
} from "@/lib/server/ops/fault-injection";

/** Corrupts a waiting run's saved state, so `unreadable_state` (422) can be seen. Only with PLAYGROUND_FAULTS=1. */
export const POST = handleRoute({ role: "admin" }, async (request: Request) => {
  if (!isFaultInjectionEnabled()) return notFoundResponse(FAULT_INJECTION_OFF);
  const { runId } = await readBody(request, unreadableStateRequestSchema);
  if (!(await makeWaitingStateUnreadable(runId))) return notFoundResponse(`No waiting run ${runId}.`);
  return jsonAnswer({ runId, unreadable: true });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
