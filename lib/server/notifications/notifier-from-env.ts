import "server-only";
import type { Db } from "@/db/client";
import { createNotificationOutbox } from "@/db/repositories/notification-outbox";
import { readNotificationChannels } from "@/lib/server/config/notification-channels";
import { createNotifier, type Notifier } from "./notifier";

/**
 * The notifier of this process's background work, from `PLAYGROUND_NOTIFICATIONS` (a configuration
 * that cannot be read is logged once and configures none). With no channel it still drains what the
 * database notes, telling nobody, so nothing piles up.
 */
export function createNotifierFromEnv(
  db: Db,
  log: (message: string, detail?: Record<string, unknown>) => void,
  env: Record<string, string | undefined> = process.env,
): Notifier {
  const channels = readNotificationChannels(env);
  if (channels.problem) log("notification channels not configured", { problem: channels.problem });
  return createNotifier({
    outbox: createNotificationOutbox(db),
    channels,
    appUrl: notificationAppUrl(env),
    env,
  });
}

/**
 * Where the links in messages point (docs/notifications.md#links-in-messages): `BETTER_AUTH_URL`,
 * else this server on localhost at the port it listens on. A background sweep sends them, with no
 * request whose origin could say; `next dev`, `next start` and bin/start-server.ts set PORT first.
 */
function notificationAppUrl(env: Record<string, string | undefined>): string {
  return env.BETTER_AUTH_URL || `http://localhost:${env.PORT || 3000}`;
}
