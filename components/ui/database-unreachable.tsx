"use client";

import { useRouter } from "next/navigation";
import { startTransition, useEffect, useState } from "react";

/** How often a page that could not reach the database asks again whether it is back (ms). */
const RETRY_EVERY_MS = 5_000;

/**
 * Asks `/api/health` whether the database answers: `"down"` on its 503
 * `database_unavailable`, `"up"` on a 2xx, `"unknown"` when the server itself
 * cannot be asked.
 */
export async function probeDatabase(): Promise<"up" | "down" | "unknown"> {
  try {
    const response = await fetch("/api/health", { cache: "no-store" });
    if (response.ok) return "up";
    const body = (await response.json().catch(() => null)) as { error?: { code?: string } } | null;
    return body?.error?.code === "database_unavailable" ? "down" : "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * What a page shows while the database is out of reach, instead of hanging
 * or failing: it says so, asks again every few seconds, and shows the page
 * again once it answers (a refresh of the route, then `onBack`: an error
 * boundary's reset).
 * Nothing the person did is lost: what was stored stays stored, and a run in
 * flight is taken over by recovery once the database is back.
 */
export function DatabaseUnreachable({ onBack }: { onBack?: () => void }) {
  const router = useRouter();
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    let isCancelled = false;
    const timer = setInterval(async () => {
      setAttempts((count) => count + 1);
      if ((await probeDatabase()) !== "up" || isCancelled) return;
      clearInterval(timer);
      startTransition(() => {
        router.refresh();
        onBack?.();
      });
    }, RETRY_EVERY_MS);
    return () => {
      isCancelled = true;
      clearInterval(timer);
    };
  }, [onBack, router]);
  return (
    <div className="panel" role="alert" aria-live="polite">
      <h1>The database is unreachable, retrying</h1>
      <p>
        The server cannot reach its database right now. This page asks again every {RETRY_EVERY_MS / 1_000}{" "}
        seconds and comes back by itself once it answers; nothing stored is lost, and runs in flight go on
        from what was stored.
      </p>
      <p className="muted">
        {attempts === 0
          ? "Waiting to ask again…"
          : `Asked ${attempts} time${attempts === 1 ? "" : "s"} so far.`}
      </p>
    </div>
  );
}
