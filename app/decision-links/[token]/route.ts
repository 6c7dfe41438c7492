import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { handleLinkRequest } from "@/lib/http/decision-link-route";

// A decision link from a notification (docs/notifications.md#decision-links). GET shows the turn and a
// confirm button and never decides; POST (that button) decides, for the person the link was sent to.
export const GET = (request: Request, context: { params: Promise<{ token: string }> }) =>
  handleLinkRequest(request, context, "show");
export const POST = (request: Request, context: { params: Promise<{ token: string }> }) =>
  handleLinkRequest(request, context, "confirm");

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
