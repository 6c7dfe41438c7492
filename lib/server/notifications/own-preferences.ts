import "server-only";
import { z } from "zod";
import type { Db } from "@/db/client";
import {
  createNotificationOutbox,
  type NotificationPreferences,
} from "@/db/repositories/notification-outbox";
import { AccountError } from "@/lib/server/auth/accounts";
import { readNotificationChannels } from "@/lib/server/config/notification-channels";
import { quietHoursSchema } from "./quiet-hours";

/** What a person may set of their own notifications on /account (docs/notifications.md#your-own-settings). */
export const ownPreferencesSchema = z
  .object({
    mutedChannels: z.array(z.string().min(1).max(64)).max(100),
    quietHours: quietHoursSchema.nullable(),
  })
  .strict();

export type OwnPreferences = z.infer<typeof ownPreferencesSchema>;

/** A person's settings, and the operator's channels they can opt out of (their kinds; never their addresses). */
export async function readOwnPreferences(
  db: Db,
  userId: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ preferences: NotificationPreferences; channels: Array<{ name: string; kind: string }> }> {
  const channels = [...readNotificationChannels(env).channels].map(([name, channel]) => ({
    name,
    kind: channel.kind,
  }));
  return { preferences: await createNotificationOutbox(db).getPreferences(userId), channels };
}

/**
 * Replaces a person's settings. A channel the operator does not configure is refused by name, and
 * nothing is stored then.
 */
export async function saveOwnPreferences(
  db: Db,
  userId: string,
  preferences: OwnPreferences,
  env: Record<string, string | undefined> = process.env,
): Promise<NotificationPreferences> {
  const configured = readNotificationChannels(env).channels;
  const unknown = preferences.mutedChannels.filter((name) => !configured.has(name));
  if (unknown.length > 0) {
    throw new AccountError(
      "invalid_request",
      `mutedChannels: no channel is configured as ${unknown.map((name) => `"${name}"`).join(", ")}`,
    );
  }
  const saved = {
    mutedChannels: [...new Set(preferences.mutedChannels)],
    quietHours: preferences.quietHours,
  };
  await createNotificationOutbox(db).setPreferences(userId, saved);
  return saved;
}
