"use client";

import type { RunView } from "@/lib/runtime/browser";
import { formatDuration } from "../ui/format-duration";
import { Timestamp } from "../ui/timestamp";
import { useNow } from "../ui/use-now";

/** When the run started and ended, from its events' times (the one fold the page shows), or null before they are known. */
export function runTimes(view: Pick<RunView, "log">): { startedAt: string | null; endedAt: string | null } {
  const started = view.log.find((entry) => entry.type === "run_started");
  const finished = view.log.findLast((entry) => entry.type === "run_finished");
  return { startedAt: started?.at ?? null, endedAt: finished?.at ?? null };
}

/**
 * Start, end and duration in the run's header, in the app's one time format
 * (Timestamp: the viewer's zone, the exact time on hover). While the run goes
 * on, how long it has run so far, counted each second.
 */
export function RunTimes({ view }: { view: Pick<RunView, "log"> }) {
  const { startedAt, endedAt } = runTimes(view);
  // Starts at the start itself, so the server's HTML and the first render agree; the browser's clock follows.
  const now = useNow(1000, startedAt ? Date.parse(startedAt) : 0);
  if (startedAt === null) return null;
  const milliseconds = (endedAt ? Date.parse(endedAt) : now) - Date.parse(startedAt);
  // A duration as HTML names one (ISO 8601), for machines; people read "8 s".
  const duration = (
    <time dateTime={`PT${Math.max(0, Math.floor(milliseconds / 1000))}S`}>
      {formatDuration(milliseconds)}
    </time>
  );
  return (
    <p className="muted run-times">
      Started <Timestamp at={startedAt} />
      {endedAt ? (
        <>
          {" · "}ended <Timestamp at={endedAt} />
          {" · "}took {duration}
        </>
      ) : (
        <>
          {" · "}running for {duration}
        </>
      )}
    </p>
  );
}
