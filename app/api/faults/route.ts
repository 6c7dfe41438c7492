import { readJsonBody } from "@/lib/http/read-request";
import { faultRequestSchema } from "@/lib/http/request-schemas";
import { getRunServiceContext } from "@/lib/server/get-run-service";

const notFound = () =>
  Response.json(
    {
      error: { code: "not_found", message: "Fault injection is off (PLAYGROUND_FAULTS=1 enables it)." },
      pending: null,
    },
    { status: 404 },
  );

/** What is armed. Exists only with PLAYGROUND_FAULTS=1. */
export async function GET() {
  const { faults } = await getRunServiceContext();
  return faults ? Response.json(faults.armed()) : notFound();
}

/** Makes the next N approval or step records fail to store; `failNext: 0` clears it. */
export async function POST(request: Request) {
  const { faults } = await getRunServiceContext();
  if (!faults) return notFound();
  const body = await readJsonBody(request, faultRequestSchema);
  if (!body.ok) return body.response;
  faults.arm(body.data.target, body.data.failNext);
  return Response.json(faults.armed());
}
