"use client";

import { useState } from "react";
import { saveNotificationPreferencesAction } from "@/app/actions/notification-preferences";
import { FormMessage, type FormMessageValue } from "../ui/form-message";

interface Props {
  channels: Array<{ name: string; kind: string }>;
  mutedChannels: string[];
  quietHours: { start: string; end: string; timeZone: string } | null;
}

/**
 * Your own notifications (docs/notifications.md#your-own-settings): which of the operator's channels
 * reach you, and quiet hours during which messages to you wait (they are sent when the hours end).
 */
export function NotificationPreferencesForm({ channels, mutedChannels, quietHours }: Props) {
  const [message, setMessage] = useState<FormMessageValue | null>(null);
  const [hasQuietHours, setHasQuietHours] = useState(quietHours !== null);
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <section className="panel" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Notifications</h2>
      <FormMessage message={message} />
      <form
        className="admin-form"
        aria-label="Your notifications"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const result = await saveNotificationPreferencesAction({
            mutedChannels: channels
              .map((channel) => channel.name)
              .filter((name) => form.get(`channel:${name}`) === null),
            quietHours: hasQuietHours
              ? {
                  start: String(form.get("quietStart") ?? ""),
                  end: String(form.get("quietEnd") ?? ""),
                  timeZone: String(form.get("quietTimeZone") ?? ""),
                }
              : null,
          });
          setMessage(
            result.ok ? { kind: "ok", text: "Saved." } : { kind: "error", text: result.error.message },
          );
        }}
      >
        {channels.length === 0 ? (
          <p className="muted">The operator has configured no notification channel.</p>
        ) : (
          <fieldset>
            <legend>Channels that reach me</legend>
            {channels.map((channel) => (
              <label key={channel.name}>
                <input
                  type="checkbox"
                  name={`channel:${channel.name}`}
                  defaultChecked={!mutedChannels.includes(channel.name)}
                />{" "}
                {channel.name} ({channel.kind})
              </label>
            ))}
          </fieldset>
        )}
        <fieldset>
          <legend>Quiet hours</legend>
          <label>
            <input
              type="checkbox"
              checked={hasQuietHours}
              onChange={(event) => setHasQuietHours(event.currentTarget.checked)}
            />{" "}
            Hold my messages during quiet hours (they are sent when the hours end, never dropped)
          </label>
          {hasQuietHours && (
            <>
              <label>
                From{" "}
                <input name="quietStart" type="time" defaultValue={quietHours?.start ?? "22:00"} required />
              </label>
              <label>
                Until <input name="quietEnd" type="time" defaultValue={quietHours?.end ?? "07:00"} required />
              </label>
              <label>
                Time zone{" "}
                <input
                  name="quietTimeZone"
                  defaultValue={quietHours?.timeZone ?? browserZone}
                  placeholder="Europe/Paris"
                  required
                />
              </label>
            </>
          )}
        </fieldset>
        <button type="submit">Save notifications</button>
      </form>
    </section>
  );
}
