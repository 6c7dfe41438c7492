/**
 * What is checked of a turn an agent submits before the run plans it
 * (docs/agent-api.md): its digest, which makes a resent turn idempotent, and
 * its call ids, each the turn's own.
 */

import { sha256Hex } from "../turn-digest";
import type { PlanProblem } from "../types";
import { AgentProtocolError } from "./agent-errors";
import type { AgentTurnInput } from "./agent-schemas";

/** The digest of what the model said: its text and its calls exactly as sent (not a re-serialisation of them). */
export function digestTurn(input: Pick<AgentTurnInput, "text" | "calls">): string {
  return sha256Hex(
    JSON.stringify({
      text: input.text,
      calls: input.calls.map((call) => [call.id, call.name, call.arguments]),
    }),
  );
}

/** Refuses a turn two of whose calls share an id. */
export function refuseDuplicateIds(input: AgentTurnInput): void {
  const seen = new Set<string>();
  const problems: PlanProblem[] = [];
  input.calls.forEach((call, batchIndex) => {
    if (seen.has(call.id)) {
      problems.push({
        batchIndex,
        code: "unknown_tool",
        message: `call id ${JSON.stringify(call.id.slice(0, 100))} is used by an earlier call of this turn`,
      });
    }
    seen.add(call.id);
  });
  if (problems.length > 0) {
    throw new AgentProtocolError("turn_refused", "Every call of a turn needs its own id.", {
      problems: problems.map((problem) => ({ ...problem, code: "duplicate_call_id" })),
    });
  }
}
