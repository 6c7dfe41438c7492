import { DIGEST_PREFIX_LENGTH, type NotificationItem } from "./notification-item";

/** Where a message's "open" button goes: the run's page, which shows the turn as the inbox does. */
export const runUrl = (appUrl: string, runId: string) => `${appUrl.replace(/\/+$/, "")}/runs/${runId}`;

const digestPrefix = (item: NotificationItem) => item.turnDigest.slice(0, DIGEST_PREFIX_LENGTH);

/** One line per item, in words: the subject of an e-mail and the fallback text of a hook. */
export function describeItem(item: NotificationItem): string {
  switch (item.kind) {
    case "waiting": {
      const gated = item.calls.filter((call) => call.isGated).map((call) => call.name);
      const deadline = item.expiresAt ? `, until ${item.expiresAt}` : "";
      if (item.escalation) {
        const { step, steps, afterMinutes } = item.escalation;
        return `“${item.runName}” has waited ${afterMinutes} minutes for a decision on ${gated.join(", ")}: escalated (step ${step} of ${steps}) (turn ${digestPrefix(item)}${deadline})`;
      }
      return `“${item.runName}” waits for a decision on ${gated.join(", ")} (turn ${digestPrefix(item)}${deadline})`;
    }
    case "expiring":
      return `“${item.runName}” still waits: its wait expires at ${item.expiresAt} (turn ${digestPrefix(item)})`;
    case "ended": {
      const by = item.by ? ` by ${item.by}` : "";
      return `“${item.runName}” no longer waits: ${item.outcome}${by} (turn ${digestPrefix(item)})`;
    }
  }
}

/** The webhook's JSON body (docs/notifications.md#webhook-body). */
export function renderWebhookBody(input: {
  channel: string;
  deliveryId: string;
  items: NotificationItem[];
  recipients: Array<{ id: string; name: string; email: string }>;
  appUrl: string;
}) {
  return {
    version: 1,
    channel: input.channel,
    delivery: input.deliveryId,
    recipients: input.recipients,
    items: input.items.map((item) => ({
      ...item,
      turnDigestPrefix: digestPrefix(item),
      text: describeItem(item),
      links: { open: runUrl(input.appUrl, item.runId) },
    })),
  };
}

/** Slack's incoming-webhook body: a section per item, the gated calls and their arguments, and an Open button. */
export function renderSlackBody(items: NotificationItem[], appUrl: string) {
  const blocks: unknown[] = [];
  for (const item of items) {
    blocks.push({ type: "section", text: { type: "mrkdwn", text: escapeSlack(describeItem(item)) } });
    if (item.kind === "waiting") {
      const lines = item.calls
        .filter((call) => call.isGated)
        .map((call) => `• \`${escapeSlack(call.name)}\` ${escapeSlack(call.arguments)}`);
      blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: lines.join("\n") }] });
    }
    if (item.kind !== "ended") {
      blocks.push({
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: "Open the turn" },
            url: runUrl(appUrl, item.runId),
            action_id: `open-${item.runId}`,
          },
        ],
      });
    }
  }
  // The text is what Slack's notifications show, and it reads mrkdwn as the blocks do: a run's name
  // there could mention everyone (<!channel>) or dress a link as anything.
  return { text: items.map((item) => escapeSlack(describeItem(item))).join("\n"), blocks };
}

/** An e-mail to one person: every item of the batch, in text and in HTML. */
export function renderEmail(items: NotificationItem[], appUrl: string, recipientName: string) {
  const waiting = items.filter((item) => item.kind === "waiting").length;
  const subject =
    items.length === 1
      ? describeItem(items[0] as NotificationItem)
      : waiting > 0
        ? `${waiting} run${waiting === 1 ? "" : "s"} wait for your decision`
        : `${items.length} updates on runs that waited for you`;
  const blocks = items.map((item) => ({
    line: describeItem(item),
    calls: item.kind === "waiting" ? item.calls : [],
    url: runUrl(appUrl, item.runId),
    links: item.kind === "waiting" ? (item.links ?? null) : null,
    isOpen: item.kind !== "ended",
  }));
  const text = [
    `Hello ${recipientName},`,
    "",
    ...blocks.flatMap((block) => [
      block.line,
      ...block.calls.map(
        (call) => `  ${call.isGated ? "[needs approval] " : ""}${call.name} ${call.arguments}`,
      ),
      ...(block.links
        ? [`  Approve: ${block.links.approve}`, `  Deny: ${block.links.deny}`, `  Open: ${block.links.open}`]
        : block.isOpen
          ? [`  Open: ${block.url}`]
          : []),
      "",
    ]),
  ].join("\n");
  const html = [
    `<p>Hello ${escapeHtml(recipientName)},</p>`,
    ...blocks.map(
      (block) =>
        `<div><p>${escapeHtml(block.line)}</p>` +
        (block.calls.length > 0
          ? `<ul>${block.calls
              .map(
                (call) =>
                  `<li>${call.isGated ? "<strong>needs approval</strong> " : ""}<code>${escapeHtml(call.name)}</code> <code>${escapeHtml(call.arguments)}</code></li>`,
              )
              .join("")}</ul>`
          : "") +
        (block.links
          ? `<p><a href="${escapeHtml(block.links.approve)}">Approve</a> · <a href="${escapeHtml(block.links.deny)}">Deny</a> · <a href="${escapeHtml(block.links.open)}">Open the turn</a></p>`
          : block.isOpen
            ? `<p><a href="${escapeHtml(block.url)}">Open the turn</a></p>`
            : "") +
        "</div>",
    ),
  ].join("\n");
  return { subject, text, html };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
