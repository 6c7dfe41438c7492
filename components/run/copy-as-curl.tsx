"use client";

import { useState } from "react";

/**
 * Copies a shell command that runs this run again over the HTTP API: it
 * fetches the run as a scenario that replays it, and starts a run from it.
 * It names the token variable; the token itself never leaves the person's shell.
 */
export function CopyAsCurl({ runId }: { runId: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  async function copy() {
    const origin = window.location.origin;
    const auth = `-H "Authorization: Bearer $PLAYGROUND_TOKEN"`;
    const command =
      `curl -s ${auth} "${origin}/api/runs/${runId}/scenario" | ` +
      `curl -s ${auth} -H 'content-type: application/json' --data-binary @- "${origin}/api/runs"`;
    try {
      await navigator.clipboard.writeText(command);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <>
      <button type="button" className="link-button" onClick={copy}>
        Copy as curl
      </button>
      <span role="status" className="muted">
        {copied === "yes" ? "Copied: set PLAYGROUND_TOKEN to an API token first." : ""}
        {copied === "failed"
          ? "The browser would not copy; the command is GET …/scenario piped to POST /api/runs."
          : ""}
      </span>
    </>
  );
}
