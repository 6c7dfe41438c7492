import { notFoundResponse } from "@/lib/http/error-response";
import { readJsonBody } from "@/lib/http/read-request";
import { unreadableStateRequestSchema } from "@/lib/http/request-schemas";
import {
  FAULT_INJECTION_OFF,
  isFaultInjectionEnabled,
  makeWaitingStateUnreadable,
} from "@/lib/server/fault-injection";

/** Corrupts a waiting run's saved state, so `unreadable_state` (422) can be seen. Only with PLAYGROUND_FAULTS=1. */
export async function POST(request: Request) {
  if (!isFaultInjectionEnabled()) return notFoundResponse(FAULT_INJECTION_OFF);
  const body = await readJsonBody(request, unreadableStateRequestSchema);
  if (!body.ok) return body.response;
  if (!(await makeWaitingStateUnreadable(body.data.runId))) {
    return notFoundResponse(`No waiting run ${body.data.runId}.`);
  }
  return Response.json({ runId: body.data.runId, unreadable: true });
}
