import "server-only";
import { allowsLinkAlone, readNotificationChannels } from "@/lib/server/config/notification-channels";
import { getDatabase } from "@/lib/server/database";
import {
  type LinkPage,
  renderConfirmPage,
  renderDecidedPage,
  renderRefusalPage,
  renderSignInPage,
  renderStalePage,
} from "@/lib/server/notifications/decision-link-page";
import {
  confirmDecisionLink,
  type LinkRefusal,
  openDecisionLink,
} from "@/lib/server/notifications/decision-links";
import { getLogger } from "@/lib/server/ops/logger";
import { getRunService } from "@/lib/server/server-context";
import { hasRole } from "@/lib/wire/roles";
import { refuseCrossSite } from "./api-route";
import { toErrorBody } from "./error-response";
import { readRequestId } from "./request-id";
import { lookUpIdentity } from "./require-identity";

const TOKEN_PATTERN = /^[\w-]{43}$/;

function pageFor(refusal: LinkRefusal, path: string): LinkPage {
  switch (refusal.code) {
    case "link_unknown":
      return renderRefusalPage(404, "Unknown link", "This link is not one this app sent.");
    case "sign_in_required":
      return renderSignInPage(path);
    case "link_not_yours":
      return renderRefusalPage(
        403,
        "Not your link",
        "This link was sent to someone else: only they can use it.",
      );
    case "recipient_cannot_decide":
      return renderRefusalPage(
        403,
        "Cannot decide",
        "The person this link was sent to cannot decide now (their account is deactivated or no longer an approver).",
      );
    case "link_used":
      return renderRefusalPage(410, "Link already used", "Each link decides once, and this one has.");
    case "link_expired":
      return renderRefusalPage(410, "Link expired", "This link has expired: open the run page to decide.");
    case "stale_turn":
      return renderStalePage(refusal.runId, refusal.current);
  }
}

const html = ({ status, html: body }: LinkPage, requestId: string) =>
  new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The token stays on this site (nothing else is linked or loaded), and the confirm button's POST
      // carries its Origin: under "no-referrer" a browser sends `Origin: null`, which refuseCrossSite
      // refuses as it must, so no one could confirm from the page.
      "referrer-policy": "same-origin",
      "x-request-id": requestId,
    },
  });

/**
 * A browser's page load (the proxy leaves decision links to this route): sent to sign-in and back,
 * as the proxy sends a stranger from any other page, when the link alone may not decide.
 */
const isPageLoad = (request: Request) =>
  request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html");

const signInRedirect = (path: string, requestId: string) =>
  new Response(null, {
    status: 307,
    headers: {
      location: `/sign-in?next=${encodeURIComponent(path)}`,
      "cache-control": "no-store",
      "x-request-id": requestId,
    },
  });

/**
 * A decision link's two requests (docs/notifications.md#decision-links): `show` (GET) checks the
 * link and shows the turn with a confirm button; `confirm` (POST, same site only) uses it once.
 */
export async function handleLinkRequest(
  request: Request,
  context: { params: Promise<{ token: string }> },
  mode: "show" | "confirm",
): Promise<Response> {
  const requestId = readRequestId(request.headers);
  const { token } = await context.params;
  const path = new URL(request.url).pathname;
  if (!TOKEN_PATTERN.test(token))
    return html(pageFor({ code: "link_unknown", status: 404 }, path), requestId);
  try {
    if (mode === "confirm") refuseCrossSite(request);
    const identity = await lookUpIdentity(request.headers);
    const viewer = identity
      ? {
          id: identity.userId,
          name: identity.name,
          decider: { role: identity.role, email: identity.email, userId: identity.userId },
        }
      : null;
    const { db } = await getDatabase();
    const service = await getRunService();
    // Read per request, so an operator who turns `linkAlone` off stops every link at once.
    const channels = readNotificationChannels();
    const linkAlone = (channel: string) => allowsLinkAlone(channels, channel);
    if (mode === "show") {
      const opened = await openDecisionLink(db, service, token, viewer, new Date(), linkAlone);
      if (!opened.ok) {
        if (opened.refusal.code === "sign_in_required" && isPageLoad(request)) {
          return signInRedirect(path, requestId);
        }
        return html(pageFor(opened.refusal, path), requestId);
      }
      return html(
        renderConfirmPage({
          runId: opened.link.runId,
          runName: opened.runName,
          pending: opened.pending,
          choice: opened.link.choice,
          linkAloneFor: opened.actor.isLinkAlone ? opened.actor.name : null,
        }),
        requestId,
      );
    }
    if (identity && !hasRole(identity.role, "approver")) {
      return html(renderRefusalPage(403, "Approvers only", "Deciding needs the approver role."), requestId);
    }
    const confirmed = await confirmDecisionLink(db, service, token, viewer, new Date(), linkAlone);
    if (!confirmed.ok) return html(pageFor(confirmed.refusal, path), requestId);
    if (confirmed.isLinkAlone && confirmed.choice !== "open") {
      // Nobody is signed in, and the link signs no one in: the run page would only ask to sign in.
      return html(renderDecidedPage(confirmed.choice), requestId);
    }
    return new Response(null, {
      status: 303,
      headers: { location: `/runs/${confirmed.runId}`, "x-request-id": requestId },
    });
  } catch (error) {
    const { status, body } = toErrorBody(error, requestId);
    if (status >= 500) getLogger().error({ requestId, error }, "a decision link failed");
    return html(renderRefusalPage(status, "Not decided", body.error.message), requestId);
  }
}
