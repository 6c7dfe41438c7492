import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleRoute, readBody } from "@/lib/http/api-route";
import { notFoundResponse } from "@/lib/http/error-response";
import { faultRequestSchema } from "@/lib/http/request-schemas";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { FAULT_INJECTION_OFF } from "@/lib/server/ops/fault-injection";
import { getRunServiceContext } from "@/lib/server/server-context";

/** What is armed. Exists only with PLAYGROUND_FAULTS=1. */
export const GET = handleRoute({ role: "admin" }, async () => {
  const { faults } = await getRunServiceContext();
  return faults ? jsonAnswer(faults.armed()) : notFoundResponse(FAULT_INJECTION_OFF);
});

/** Makes the next N approval or step records fail to store; `failNext: 0` clears it. */
export const POST = handleRoute({ role: "admin" }, async (request: Request) => {
  const { faults } = await getRunServiceContext();
  if (!faults) return notFoundResponse(FAULT_INJECTION_OFF);
  const { target, failNext } = await readBody(request, faultRequestSchema);
  faults.arm(target, failNext);
  return jsonAnswer(faults.armed());
});

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
