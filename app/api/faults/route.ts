import { notFoundResponse } from "@/lib/http/error-response";
import { readJsonBody } from "@/lib/http/read-request";
import { faultRequestSchema } from "@/lib/http/request-schemas";
import { FAULT_INJECTION_OFF } from "@/lib/server/fault-injection";
import { getRunServiceContext } from "@/lib/server/get-run-service";

/** What is armed. Exists only with PLAYGROUND_FAULTS=1. */
export async function GET() {
  const { faults } = await getRunServiceContext();
  return faults ? Response.json(faults.armed()) : notFoundResponse(FAULT_INJECTION_OFF);
}

/** Makes the next N approval or step records fail to store; `failNext: 0` clears it. */
export async function POST(request: Request) {
  const { faults } = await getRunServiceContext();
  if (!faults) return notFoundResponse(FAULT_INJECTION_OFF);
  const body = await readJsonBody(request, faultRequestSchema);
  if (!body.ok) return body.response;
  faults.arm(body.data.target, body.data.failNext);
  return Response.json(faults.armed());
}
