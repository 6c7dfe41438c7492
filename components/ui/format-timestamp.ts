/**
 * The one way a stored time is shown: the date and the time to the second, in
 * the viewer's time zone and locale, with the zone named
 * (`Dec 1, 2026, 10:02:28 AM UTC`); and, for a hover, the exact instant to the
 * millisecond, in the viewer's zone and in UTC. Pass `timeZone`/`locale` only
 * to pin them (tests, the server's first render).
 */
export function formatTimestamp(
  at: string,
  options: { timeZone?: string; locale?: string } = {},
): { text: string; exact: string } {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return { text: at, exact: at };
  const text = new Intl.DateTimeFormat(options.locale, {
    timeZone: options.timeZone,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  }).format(date);
  const local = new Intl.DateTimeFormat(options.locale, {
    timeZone: options.timeZone,
    dateStyle: "full",
    timeStyle: "long",
  }).format(date);
  const milliseconds = String(date.getUTCMilliseconds()).padStart(3, "0");
  return { text, exact: `${local} (+${milliseconds} ms) · ${date.toISOString()}` };
}
