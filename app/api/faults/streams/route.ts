import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute } from "@/lib/http/api-route";
import { notFoundResponse } from "@/lib/http/error-response";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { FAULT_INJECTION_OFF, isFaultInjectionEnabled } from "@/lib/server/ops/fault-injection";
import { dropOpenStreams } from "@/lib/server/streams/open-streams";

/** Ends every open run event stream of this instance, so browsers must resume. Only with PLAYGROUND_FAULTS=1. */
export const POST = handleRoute({ role: "admin" }, async () => {
  if (!isFaultInjectionEnabled()) return notFoundResponse(FAULT_INJECTION_OFF);
  return jsonAnswer({ dropped: dropOpenStreams() });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ POST });
