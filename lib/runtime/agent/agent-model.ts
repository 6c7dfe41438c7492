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
        // Waiting from before the read: a turn stored while the read is on its way wakes this wait.
        // Begun after it, such a turn's wake-up found nobody, and the run sat out the whole poll.
        const stopWaiting = new AbortController();
        const changed = options.mailbox.waitForChange(
          runId,
          options.pollMs,
          signal ? AbortSignal.any([signal, stopWaiting.signal]) : stopWaiting.signal,
        );
        // A wait may last hours: a read that fails (the database away for a moment) is tried again, not the run's end.
        const turn = await options.mailbox.readTurn(runId, completionIndex).catch(() => null);
        if (turn || signal?.aborted) stopWaiting.abort();
        if (turn) return { text: turn.text, calls: turn.calls, usage: turn.usage };
        if (signal?.aborted)
          throw new RuntimeError("cancelled", "The wait for the agent's turn was cancelled.");
        await changed;
      }
    },
  };
}
