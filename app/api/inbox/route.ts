import { errorResponse } from "@/lib/http/error-response";
import { getRunService } from "@/lib/server/get-run-service";

/** Every run waiting for a decision, newest wait first, with its pending turn. */
export async function GET() {
  try {
    return Response.json({ items: await (await getRunService()).listInbox() });
  } catch (error) {
    return errorResponse(error);
  }
}
