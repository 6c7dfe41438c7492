import "server-only";
import type { Db } from "@/db/client";
import { createNotificationOutbox } from "@/db/repositories/notification-outbox";
import {
  type NotificationChannel,
  readNotificationChannels,
} from "@/lib/server/config/notification-channels";
import { createNotifier, type Notifier } from "./notifier";

/**
 * The notifier of this process's background work, from `PLAYGROUND_NOTIFICATIONS`. What would keep
 * messages from going out is a warning at start, not at the first send: a configuration that cannot
 * be read (it configures no channel), and a channel naming a variable that is not set. With no
 * channel it still drains what the database notes, telling nobody, so nothing piles up.
 */
export function createNotifierFromEnv(
  db: Db,
  warn: (message: string, detail?: Record<string, unknown>) => void,
  env: Record<string, string | undefined> = process.env,
): Notifier {
  const channels = readNotificationChannels(env);
  if (channels.problem) {
    warn("the notification channels cannot be read: none is configured", { problem: channels.problem });
  }
  for (const [name, channel] of channels.channels) {
    for (const [field, variable] of namedVariables(channel)) {
      if (!env[variable])
        warn("a notification channel names a variable that is not set", { channel: name, field, variable });
    }
  }
  return createNotifier({
    outbox: createNotificationOutbox(db),
    channels,
    appUrl: notificationAppUrl(env),
    env,
    warn,
  });
}

/** The environment variables a channel reads its secrets from, by the field naming each. */
function namedVariables(channel: NotificationChannel): Array<[field: string, variable: string]> {
  if (channel.kind === "webhook") return [["secretEnv", channel.secretEnv]];
  if (channel.kind !== "email") return [];
  const named: Array<[string, string | undefined]> = [
    ["smtp.userEnv", channel.smtp.userEnv],
    ["smtp.passwordEnv", channel.smtp.passwordEnv],
  ];
  return named.filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/**
 * Where the links in messages point (docs/notifications.md#links-in-messages): `BETTER_AUTH_URL`,
 * else this server on localhost at the port it listens on. A background sweep sends them, with no
 * request whose origin could say; `next dev`, `next start` and bin/start-server.ts set PORT first, to
 * the port they listen on (the one the system picked, given 0).
 */
function notificationAppUrl(env: Record<string, string | undefined>): string {
  return env.BETTER_AUTH_URL || `http://localhost:${env.PORT || 3000}`;
}
