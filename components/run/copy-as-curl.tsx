"use client";

import { useState } from "react";
import { buildCurlCommands, type CurlCommand } from "./curl-commands";

/**
 * The run's HTTP API requests as curl commands to copy: start a new run from
 * this one's scenario, decide the waiting turn, read the report. Each says
 * what it does; the token is `$PLAYGROUND_TOKEN`, explained here, and never
 * leaves the person's shell.
 */
export function CopyAsCurl({ runId, turnDigest }: { runId: string; turnDigest: string | null }) {
  const [copied, setCopied] = useState<{ command: CurlCommand; ok: boolean } | null>(null);
  const [origin, setOrigin] = useState<string | null>(null);
  const commands = origin ? buildCurlCommands({ origin, runId, turnDigest }) : [];
  async function copy(command: CurlCommand) {
    try {
      await navigator.clipboard.writeText(command.command);
      setCopied({ command, ok: true });
    } catch {
      setCopied({ command, ok: false });
    }
  }
  return (
    <details
      className="curl-commands"
      onToggle={(event) => {
        if (event.currentTarget.open) setOrigin(window.location.origin);
      }}
    >
      <summary>Copy as curl</summary>
      <div className="curl-commands-body">
        <p className="muted">
          Each command sends <code>$PLAYGROUND_TOKEN</code>, an API token: create one under{" "}
          <a href="/account">Your tokens</a>, then <code>export PLAYGROUND_TOKEN=tp_…</code> in your shell.
        </p>
        <ul>
          {commands.map((command) => (
            <li key={command.id}>
              <button type="button" onClick={() => copy(command)}>
                Copy: {command.label}
              </button>{" "}
              <span className="muted">{command.effect}</span>
            </li>
          ))}
        </ul>
        <p role="status" className="muted">
          {copied?.ok === true ? `Copied “${copied.command.label}”. Set PLAYGROUND_TOKEN first.` : ""}
          {copied?.ok === false
            ? `The browser would not copy; the command is: ${copied.command.command}`
            : ""}
        </p>
      </div>
    </details>
  );
}
