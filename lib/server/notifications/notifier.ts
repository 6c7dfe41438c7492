import "server-only";
import { createHash } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import type {
  NewEscalation,
  NewOutboxLine,
  NotedEvent,
  NotificationOutbox,
  UserRecord,
} from "@/db/repositories/notification-outbox";
import { mayDecideCall, type PolicyDecision } from "@/lib/runtime";
import type { NotificationChannel, NotificationChannels } from "@/lib/server/config/notification-channels";
import { logWarning } from "@/lib/server/ops/logger";
import { hasRole, isRole } from "@/lib/wire/roles";
import { mintDecisionLinks } from "./decision-links";
import { isRunHeard, itemForEvent, type NotificationItem, runMetadata } from "./notification-item";
import { endOfQuietHours } from "./quiet-hours";
import { renderEmail, renderSlackBody, renderWebhookBody } from "./render-messages";
import { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from "./webhook-signature";

/** The recipient of a hook's message: the channel itself, carrying everyone's part. */
export const WHOLE_CHANNEL = "*";

const EVENTS_PER_SWEEP = 100;
const MESSAGES_PER_SWEEP = 500;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 60 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface NotifierOptions {
  outbox: NotificationOutbox;
  channels: NotificationChannels;
  /** Where the links in messages point: BETTER_AUTH_URL, else this server on localhost (notifier-from-env.ts). */
  appUrl: string;
  /** Where secrets and SMTP credentials are read from (the server's environment). */
  env?: Record<string, string | undefined>;
  /** The clock deciding what is due and when to try again; tests move it. */
  now?: () => Date;
  fetch?: typeof fetch;
  /** How long a sender holds the lines it claimed before another instance may take them. */
  leaseMs?: number;
  /** The wait before a failed message's second try; it doubles each try, up to an hour. */
  backoffMs?: number;
  /** Where each failed attempt is told as a warning (default the server's log), besides the delivery log. */
  warn?: (message: string, detail?: Record<string, unknown>) => void;
}

export type Notifier = ReturnType<typeof createNotifier>;

/**
 * Who a channel (or an escalation step) is for, among the active accounts: its users by e-mail and
 * everyone holding its roles.
 */
export function resolveAudience(channel: Pick<NotificationChannel, "to">, users: UserRecord[]): UserRecord[] {
  const emails = new Set(channel.to.users.map((email) => email.toLowerCase()));
  const roles = new Set<string>(channel.to.roles);
  return users.filter(
    (user) =>
      user.isActive && (emails.has(user.email.toLowerCase()) || (user.role !== null && roles.has(user.role))),
  );
}

/**
 * True when the person may decide the turn's barrier, the call a decision link decides: they hold
 * the approver role (or more), and a policy rule that requires a decision names them among its
 * approvers (docs/notifications.md#who-gets-decision-links). Only they are sent decision links.
 */
export function mayDecideBarrier(user: UserRecord, barrierPolicy: PolicyDecision | undefined): boolean {
  const role = isRole(user.role) ? user.role : "viewer";
  if (!hasRole(role, "approver")) return false;
  return mayDecideCall(barrierPolicy, { role, email: user.email, userId: user.id });
}

/**
 * Expands noted run events into outbox lines and sends the due lines, one message per channel and
 * recipient however many runs it carries (docs/notifications.md#how-delivery-works). Every instance
 * may run `sweep` at once: the outbox hands each event and each line to one of them.
 */
export function createNotifier(options: NotifierOptions) {
  const now = options.now ?? (() => new Date());
  const env = options.env ?? process.env;
  const send = options.fetch ?? fetch;
  const warn = options.warn ?? logWarning;
  const transports = new Map<string, Transporter>();

  /** A waiting item's lines on one channel: per person with their own links (e-mail), or one for a hook. */
  function linesFor(
    noted: NotedEvent,
    name: string,
    channel: NotificationChannel,
    audience: UserRecord[],
    item: Extract<NotificationItem, { kind: "waiting" }>,
  ): NewOutboxLine[] {
    if (channel.kind !== "email") {
      return [{ eventId: noted.id, runId: noted.runId, channel: name, recipient: WHOLE_CHANNEL, item }];
    }
    const lines: NewOutboxLine[] = [];
    for (const user of audience) {
      if (user.preferences.mutedChannels.includes(name)) continue;
      const held = endOfQuietHours(user.preferences.quietHours, now());
      if (!mayDecideBarrier(user, noted.barrierPolicy)) {
        // Told, but with no Approve or Deny link to forward or click: the run page is theirs to read.
        lines.push({
          eventId: noted.id,
          runId: noted.runId,
          channel: name,
          recipient: user.id,
          item,
          ...(held ? { notBefore: held } : {}),
        });
        continue;
      }
      // A held message's links last from when it is sent (and still never past the wait).
      const { urls, records } = mintDecisionLinks({
        userId: user.id,
        runId: noted.runId,
        turnDigest: item.turnDigest,
        channel: name,
        waitExpiresAt: item.expiresAt,
        ttlMinutes: channel.linkTtlMinutes,
        now: held ?? now(),
        appUrl: options.appUrl,
      });
      lines.push({
        eventId: noted.id,
        runId: noted.runId,
        channel: name,
        recipient: user.id,
        item: { ...item, links: urls },
        links: records,
        ...(held ? { notBefore: held } : {}),
      });
    }
    return lines;
  }

  /**
   * Another line to a person, their own settings applied (docs/notifications.md#your-own-settings):
   * none on a channel they opted out of, held through their quiet hours.
   */
  function personally(user: UserRecord, channel: string, line: NewOutboxLine): NewOutboxLine | null {
    if (user.preferences.mutedChannels.includes(channel)) return null;
    const held = endOfQuietHours(user.preferences.quietHours, now());
    return held ? { ...line, notBefore: held } : line;
  }

  function planLines(
    events: NotedEvent[],
    users: UserRecord[],
  ): { lines: NewOutboxLine[]; escalations: NewEscalation[] } {
    const lines: NewOutboxLine[] = [];
    const escalations: NewEscalation[] = [];
    for (const noted of events) {
      if (noted.event.type === "approval_escalated") {
        // An escalation step tells its group on the channel that carries the chain.
        const { channel: name, step, steps, afterMinutes, to } = noted.event.payload;
        const channel = options.channels.channels.get(name);
        const scheduled = noted.escalationItem as Extract<NotificationItem, { kind: "waiting" }> | null;
        if (!channel || !scheduled) continue;
        const item = { ...scheduled, escalation: { step, steps, afterMinutes, to } };
        const configured = channel.escalation[step - 1];
        if (!configured) continue;
        lines.push(...linesFor(noted, name, channel, resolveAudience(configured, users), item));
        continue;
      }
      const item = itemForEvent(noted.runId, noted.runName, noted.event);
      if (!item) continue;
      if (item.kind === "waiting" && noted.event.type === "awaiting_approval") {
        const { tools } = noted.event.payload;
        const gated = item.calls
          .filter((call) => call.isGated)
          .map((call) => ({
            name: call.name,
            server: tools?.find((tool) => tool.name === call.name)?.origin?.server ?? null,
          }));
        const metadata = runMetadata(noted.scenario);
        const waitStarted = new Date(noted.event.at).getTime();
        for (const [name, channel] of options.channels.channels) {
          if (!isRunHeard(channel.runs, gated, metadata)) continue;
          lines.push(...linesFor(noted, name, channel, resolveAudience(channel, users), item));
          // The chain is scheduled with the wait's first message, bound to this turn.
          channel.escalation.forEach((step, index) => {
            escalations.push({
              runId: noted.runId,
              turnDigest: item.turnDigest,
              channel: name,
              step: index + 1,
              dueAt: new Date(waitStarted + step.afterMinutes * 60_000),
              item,
            });
          });
        }
      } else {
        // Only those told the run waits hear that it soon expires or no longer waits.
        for (const { channel, recipient } of noted.toldOfWait) {
          if (!options.channels.channels.has(channel)) continue;
          const line = { eventId: noted.id, runId: noted.runId, channel, recipient, item };
          const user = users.find((candidate) => candidate.id === recipient);
          const kept = user ? personally(user, channel, line) : line;
          if (kept) lines.push(kept);
        }
      }
    }
    return { lines, escalations };
  }

  async function deliverOne(
    name: string,
    channel: NotificationChannel,
    recipient: string,
    items: NotificationItem[],
    messageIds: number[],
    users: UserRecord[],
  ): Promise<string> {
    const deliveryId = createHash("sha256")
      .update(`${name}:${recipient}:${messageIds.join(",")}`)
      .digest("hex")
      .slice(0, 32);
    if (channel.kind === "email") {
      const user = users.find((candidate) => candidate.id === recipient);
      if (!user?.isActive) throw new PermanentFailure("the recipient's account is gone or deactivated");
      const transport = transportFor(name, channel);
      const mail = renderEmail(items, options.appUrl, user.name);
      const info = await transport.sendMail({
        from: channel.from,
        to: user.email,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { "X-Playground-Delivery": deliveryId },
      });
      return `accepted by ${channel.smtp.host}: ${String(info.response ?? "").slice(0, 200)}`;
    }
    const body =
      channel.kind === "webhook"
        ? JSON.stringify(
            renderWebhookBody({
              channel: name,
              deliveryId,
              items,
              recipients: hookRecipients(name, channel, items, users),
              appUrl: options.appUrl,
            }),
          )
        : JSON.stringify(renderSlackBody(items, options.appUrl));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      [DELIVERY_HEADER]: deliveryId,
    };
    if (channel.kind === "webhook") {
      const secret = env[channel.secretEnv];
      if (!secret) throw new Error(`the signing secret's variable ${channel.secretEnv} is not set`);
      const timestamp = Math.floor(now().getTime() / 1000);
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = signWebhook(secret, timestamp, body);
    }
    const response = await send(channel.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status < 200 || response.status >= 300)
      throw new Error(`the receiver answered ${response.status}`);
    return `the receiver answered ${response.status}`;
  }

  function transportFor(name: string, channel: Extract<NotificationChannel, { kind: "email" }>): Transporter {
    let transport = transports.get(name);
    if (!transport) {
      const user = channel.smtp.userEnv ? env[channel.smtp.userEnv] : undefined;
      const pass = channel.smtp.passwordEnv ? env[channel.smtp.passwordEnv] : undefined;
      transport = nodemailer.createTransport({
        host: channel.smtp.host,
        port: channel.smtp.port,
        secure: channel.smtp.secure,
        auth: user ? { user, pass } : undefined,
        connectionTimeout: REQUEST_TIMEOUT_MS,
        greetingTimeout: REQUEST_TIMEOUT_MS,
        socketTimeout: REQUEST_TIMEOUT_MS,
      });
      transports.set(name, transport);
    }
    return transport;
  }

  return {
    /**
     * Fires the escalation steps due now, each once across instances (docs/notifications.md#escalation);
     * returns how many fired. A step whose wait ended, or whose channel or step is no longer
     * configured, stops without a word.
     */
    async escalate(): Promise<number> {
      let total = 0;
      for (;;) {
        const fired = await options.outbox.fireDueEscalations(now(), EVENTS_PER_SWEEP, (due) => {
          const channel = options.channels.channels.get(due.channel);
          const step = channel?.escalation[due.step - 1];
          if (!channel || !step) return null;
          return {
            channel: due.channel,
            step: due.step,
            steps: channel.escalation.length,
            afterMinutes: step.afterMinutes,
            to: { users: step.to.users, roles: step.to.roles },
          };
        });
        total += fired.length;
        if (fired.length < EVENTS_PER_SWEEP) return total;
      }
    },

    /** Turns the noted events into outbox lines; returns how many events it took. */
    async expand(): Promise<number> {
      const users = await options.outbox.listUsers();
      let total = 0;
      for (;;) {
        const taken = await options.outbox.expandEvents(now(), EVENTS_PER_SWEEP, (events) =>
          planLines(events, users),
        );
        total += taken;
        if (taken < EVENTS_PER_SWEEP) return total;
      }
    },

    /** Sends what is due, one message per channel and recipient; returns how many messages it tried. */
    async deliver(): Promise<number> {
      const claimed = await options.outbox.claimDueMessages(
        now(),
        options.leaseMs ?? DEFAULT_LEASE_MS,
        MESSAGES_PER_SWEEP,
      );
      if (claimed.length === 0) return 0;
      const users = await options.outbox.listUsers();
      await Promise.all(
        claimed.map(async (message) => {
          const channel = options.channels.channels.get(message.channel);
          let outcome: { isDelivered: boolean; detail: string; canRetry: boolean };
          if (!channel) {
            outcome = { isDelivered: false, detail: "the channel is no longer configured", canRetry: false };
          } else {
            try {
              const detail = await deliverOne(
                message.channel,
                channel,
                message.recipient,
                message.items as NotificationItem[],
                message.messageIds,
                users,
              );
              outcome = { isDelivered: true, detail, canRetry: false };
            } catch (error) {
              outcome = {
                isDelivered: false,
                detail: describeFailure(error),
                canRetry: !(error instanceof PermanentFailure) && message.attempt < channel.maxAttempts,
              };
            }
          }
          const at = now();
          const backoff = Math.min(
            (options.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** (message.attempt - 1),
            MAX_BACKOFF_MS,
          );
          const retryAt = outcome.canRetry ? new Date(at.getTime() + backoff) : null;
          await options.outbox.recordAttempt(message, {
            isDelivered: outcome.isDelivered,
            detail: outcome.detail,
            at,
            retryAt,
          });
          // The delivery log is read only by someone who already suspects a channel: an operator
          // watching the server's log learns of a failing one here. Ids and the failure, never the
          // message, its recipient's address or the channel's secrets.
          if (!outcome.isDelivered) {
            warn("a notification could not be delivered", {
              channel: message.channel,
              runIds: [...new Set((message.items as NotificationItem[]).map((item) => item.runId))],
              attempt: message.attempt,
              error: outcome.detail,
              retryAt: retryAt?.toISOString() ?? null,
            });
          }
        }),
      );
      return claimed.length;
    },

    async sweep(): Promise<void> {
      await this.escalate();
      await this.expand();
      await this.deliver();
    },

    close() {
      for (const transport of transports.values()) transport.close();
      transports.clear();
    },
  };
}

/**
 * The people a hook's message is for: the channel's, and those of each escalation step it carries,
 * less anyone who opted out of the channel (docs/notifications.md#your-own-settings).
 */
function hookRecipients(
  name: string,
  channel: NotificationChannel,
  items: NotificationItem[],
  users: UserRecord[],
): Array<{ id: string; name: string; email: string }> {
  const people = new Map(resolveAudience(channel, users).map((user) => [user.id, user]));
  for (const item of items) {
    if (item.kind !== "waiting" || !item.escalation) continue;
    const step = channel.escalation[item.escalation.step - 1];
    for (const user of step ? resolveAudience(step, users) : []) people.set(user.id, user);
  }
  return [...people.values()]
    .filter((user) => !user.preferences.mutedChannels.includes(name))
    .map(({ id, name: userName, email }) => ({ id, name: userName, email }));
}

class PermanentFailure extends Error {}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return `${error.message}${cause ? ` (${cause})` : ""}`.slice(0, 300);
}
