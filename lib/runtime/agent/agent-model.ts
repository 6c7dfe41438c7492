import { RuntimeError } from "../errors";
import type { Model } from "../model/model";
import type { AgentMailbox } from "./agent-mailbox";

/**
 * The model of an agent's run: its completions are the turns the agent
 * submits (`completionIndex` N is turn N). A turn not yet submitted is waited
 * for, reading the mailbox again every `pollMs` (or at once when this process
 * stores it), until it comes or the step is cancelled.
 */
export function createAgentModel(
  runId: string,
  options: { mailbox: AgentMailbox; pollMs: number; name?: string },
): Model {
  return {
    name: options.name ?? "agent",
    async complete({ completionIndex, signal }) {
      for (;;) {
        // A wait may last hours: a read that fails (the database away for a moment) is tried again, not the run's end.
        const turn = await options.mailbox.readTurn(runId, completionIndex).catch(() => null);
        if (turn) return { text: turn.text, calls: turn.calls, usage: turn.usage };
        if (signal?.aborted)
          throw new RuntimeError("cancelled", "The wait for the agent's turn was cancelled.");
        await options.mailbox.waitForChange(runId, options.pollMs, signal);
      }
    },
  };
}
