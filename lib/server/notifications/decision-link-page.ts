import type { DecisionChoice } from "@/db/repositories/decision-links";
import type { PendingTurn } from "@/lib/runtime";
import { DIGEST_PREFIX_LENGTH } from "./notification-item";
import { escapeHtml } from "./render-messages";

/**
 * The pages a decision link answers with (docs/notifications.md#decision-links): plain HTML with no
 * script, so a mail scanner or a link preview that fetches it can do nothing but read it.
 */
export interface LinkPage {
  status: number;
  html: string;
}

const CHOICE_WORDS: Record<DecisionChoice, string> = {
  approve: "Approve",
  deny: "Deny",
  open: "Open",
};

// Long arguments wrap instead of widening the page past a phone's screen (390 px).
const PAGE_STYLE =
  "body{font-family:system-ui,sans-serif;line-height:1.5;margin:0 auto;max-width:48rem;padding:1rem}pre,code{white-space:pre-wrap;overflow-wrap:anywhere}";

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Tool Playground</title><style>${PAGE_STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** The turn as the inbox shows it: each pending call with its arguments, the gated ones marked. */
function renderTurn(pending: PendingTurn): string {
  const gates = new Set(pending.gates ?? [pending.calls[0]?.batchIndex]);
  const rows = pending.calls
    .map(
      (call) =>
        `<li>${gates.has(call.batchIndex) ? "<strong>needs approval</strong> " : ""}<code>${escapeHtml(call.name)}</code><pre>${escapeHtml(call.arguments)}</pre></li>`,
    )
    .join("");
  const expiry = pending.expiresAt
    ? `<p>The wait expires at <time>${escapeHtml(pending.expiresAt)}</time>.</p>`
    : "";
  return `<ol data-testid="link-turn">${rows}</ol><p>Turn <code data-testid="link-digest">${escapeHtml(pending.turnDigest.slice(0, DIGEST_PREFIX_LENGTH))}</code></p>${expiry}`;
}

export function renderConfirmPage(input: {
  runId: string;
  runName: string;
  pending: PendingTurn;
  choice: DecisionChoice;
  /** Nobody is signed in and the link alone decides, for this person (docs/notifications.md#the-link-alone). */
  linkAloneFor?: string | null;
}): LinkPage {
  const linkAlone = input.linkAloneFor
    ? `<p data-testid="link-alone">You are not signed in: confirming decides this one turn as <strong>${escapeHtml(input.linkAloneFor)}</strong>, to whom this link was sent, and signs you in to nothing else.</p>`
    : "";
  const action =
    input.choice === "open"
      ? `<p><a href="/runs/${escapeHtml(input.runId)}">Open the run page</a> to decide.</p>`
      : `${linkAlone}<form method="post"><button type="submit" data-testid="confirm-decision">${CHOICE_WORDS[input.choice]} this turn</button></form><p>Nothing is decided until you confirm.</p>`;
  return {
    status: 200,
    html: page(
      `${CHOICE_WORDS[input.choice]} “${input.runName}”`,
      `<h1>${CHOICE_WORDS[input.choice]} “${escapeHtml(input.runName)}”?</h1>${renderTurn(input.pending)}${action}`,
    ),
  };
}

/** After the link alone decided: said here, since the run page needs a sign-in the link never gives. */
export function renderDecidedPage(choice: DecisionChoice): LinkPage {
  const done = choice === "deny" ? "Denied" : "Approved";
  return {
    status: 200,
    html: page(
      done,
      `<h1 data-testid="link-decided">${done}</h1><p>The turn is ${done.toLowerCase()}, and this link is used. You are not signed in: <a href="/sign-in">sign in</a> to follow the run.</p>`,
    ),
  };
}

export function renderSignInPage(path: string): LinkPage {
  return {
    status: 401,
    html: page(
      "Sign in to decide",
      `<h1>Sign in to decide</h1><p>This link decides only for the person it was sent to. <a href="/sign-in?next=${encodeURIComponent(path)}">Sign in</a>, then open it again.</p>`,
    ),
  };
}

export function renderStalePage(runId: string, current: PendingTurn | null): LinkPage {
  const now = current
    ? `<p>The turn waiting now is a different one: decide it from the run page, where you can read it.</p>${renderTurn(current)}`
    : "<p>The run no longer waits for a decision.</p>";
  return {
    status: 409,
    html: page(
      "The turn changed",
      `<h1>The turn changed</h1><p>This link was for a turn that is no longer the one waiting, so it decides nothing.</p>${now}<p><a href="/runs/${escapeHtml(runId)}">Open the run page</a></p>`,
    ),
  };
}

export function renderRefusalPage(status: number, title: string, message: string): LinkPage {
  return { status, html: page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`) };
}
