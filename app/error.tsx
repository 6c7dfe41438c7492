"use client";

import { useEffect, useState } from "react";
import { DatabaseUnreachable, probeDatabase } from "@/components/ui/database-unreachable";

/**
 * Any page that failed to render: say so, keep the header, offer a retry.
 * Details are in the server log. When the failure was the database being out
 * of reach (the health check says so), the page says that instead and
 * retries by itself until it answers.
 */
export default function PageError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const [database, setDatabase] = useState<"up" | "down" | "unknown" | "asking">("asking");
  useEffect(() => {
    let isCancelled = false;
    void probeDatabase().then((answer) => {
      if (!isCancelled) setDatabase(answer);
    });
    return () => {
      isCancelled = true;
    };
  }, []);
  if (database === "down") return <DatabaseUnreachable onBack={reset} />;
  return (
    <div className="panel" role="alert">
      <h1>This page could not be shown</h1>
      <p>
        Something went wrong while loading it; the server has logged the details. Nothing you did was lost.
      </p>
      <button type="button" className="primary" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
