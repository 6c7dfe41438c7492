import { handleRoute } from "@/lib/http/api-route";
import { getRunService } from "@/lib/server/get-run-service";

/** Every run waiting for a decision, newest wait first, with its pending turn. */
export const GET = handleRoute({ role: "viewer" }, async () =>
  Response.json({ items: await (await getRunService()).listInbox() }),
);
