"use server";

import { revalidatePath } from "next/cache";
import { serverAction } from "@/lib/http/server-action";
import { getDatabase } from "@/lib/server/database";
import {
  type OwnPreferences,
  ownPreferencesSchema,
  saveOwnPreferences,
} from "@/lib/server/notifications/own-preferences";

/**
 * Sets the caller's own notification settings: the channels that do not reach them, and their
 * quiet hours (docs/notifications.md#your-own-settings). Anyone signed in, for themself only.
 */
export async function saveNotificationPreferencesAction(input: OwnPreferences) {
  return serverAction(
    ownPreferencesSchema,
    input,
    async (preferences, identity) => {
      const saved = await saveOwnPreferences((await getDatabase()).db, identity.userId, preferences);
      revalidatePath("/account");
      return saved;
    },
    { role: "viewer" },
  );
}
