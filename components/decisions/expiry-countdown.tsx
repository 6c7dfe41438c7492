"use client";

import { formatDuration } from "../ui/format-duration";
import { Timestamp } from "../ui/timestamp";
import { useNow } from "../ui/use-now";

/**
 * How long is left to decide a wait that expires: a countdown to
 * `expiresAt`, marked urgent in its last fifth. Past the deadline it says
 * so until the server records the expiry (the page then shows it).
 */
export function ExpiryCountdown({ expiresAt, isExpiring }: { expiresAt: string; isExpiring: boolean }) {
  const now = useNow(1_000, Date.now());
  const left = Date.parse(expiresAt) - now;
  return (
    <p className="countdown" data-urgent={isExpiring || left <= 0 ? "true" : undefined}>
      {left > 0 ? (
        <>
          Expires in{" "}
          <span role="timer" aria-label="Time left to decide" suppressHydrationWarning>
            {formatSeconds(left)}
          </span>
          {isExpiring ? " — decide soon, or it expires: the gated call will not run." : ""}
        </>
      ) : (
        <>Expired: nobody decided in time. The gated call will not run.</>
      )}{" "}
      <span className="muted">
        (at <Timestamp at={expiresAt} />)
      </span>
    </p>
  );
}

function formatSeconds(ms: number): string {
  const seconds = Math.ceil(ms / 1_000);
  if (seconds >= 3_600) return formatDuration(ms);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
