import { z } from "zod";

const timeOfDaySchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM, 00:00 to 23:59");

/** A person's quiet hours (docs/notifications.md#your-own-settings): `end` before `start` spans midnight. */
export const quietHoursSchema = z
  .object({
    start: timeOfDaySchema,
    end: timeOfDaySchema,
    timeZone: z.string().refine(isTimeZone, "must be an IANA time zone, such as Europe/Paris"),
  })
  .strict()
  .refine((hours) => hours.start !== hours.end, { error: "start and end must differ" });

export type QuietHours = z.infer<typeof quietHoursSchema>;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const toSeconds = (time: string) => {
  const [hours, minutes] = time.split(":").map(Number);
  return (hours ?? 0) * 3600 + (minutes ?? 0) * 60;
};

/**
 * When the quiet hours around `now` end, or null when `now` is outside them (or there are none): a
 * message due now is held until then, never dropped.
 */
export function endOfQuietHours(hours: QuietHours | null, now: Date): Date | null {
  if (!hours) return null;
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: hours.timeZone,
    hourCycle: "h23",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(now);
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  const local = part("hour") * 3600 + part("minute") * 60 + part("second");
  const start = toSeconds(hours.start);
  const end = toSeconds(hours.end);
  const isQuiet = start < end ? local >= start && local < end : local >= start || local < end;
  if (!isQuiet) return null;
  const secondsLeft = (end - local + 86_400) % 86_400;
  return new Date(now.getTime() - now.getMilliseconds() + secondsLeft * 1000);
}
