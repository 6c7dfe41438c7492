/**
 * What a model is told of each call of a turn's outcome (docs/agents.md):
 * the result when it ran, and otherwise why not, in words it can act on —
 * an approver's denial with their reply, an invalidation with its cause.
 */
import type { CallOutcomeView } from "./agent-client-types";

export type ModelToolResult =
  | { kind: "result"; value: unknown; text: string }
  | { kind: "denied"; reason: string; text: string }
  | { kind: "error"; text: string };

export function toolResultForModel(call: CallOutcomeView): ModelToolResult {
  switch (call.status) {
    case "ok": {
      const text = typeof call.result === "string" ? call.result : JSON.stringify(call.result ?? null);
      return {
        kind: "result",
        value: call.result,
        text: call.edited
          ? `${text}\n(An approver changed the arguments before it ran; it ran with ${call.arguments}.)`
          : text,
      };
    }
    case "denied": {
      // The approver's reply as typed, ended as a sentence so that the next one does not run into it.
      const reply = call.reply?.trim();
      const reason = reply
        ? `An approver denied this call: ${/[.!?…]["')\]]*$/u.test(reply) ? reply : `${reply}.`}`
        : "An approver denied this call.";
      return { kind: "denied", reason, text: `${reason} It did not run.` };
    }
    case "interrupted":
      return {
        kind: "error",
        text: `Interrupted: it may or may not have run, and will not be run again. ${call.error?.message ?? ""}`.trim(),
      };
    case "error":
      return {
        kind: "error",
        text: `Error${call.error?.code ? ` (${call.error.code})` : ""}: ${call.error?.message ?? "failed"}`,
      };
    default:
      // invalidated, expired, not_dispatched: it did not run, and the server says why.
      return { kind: "error", text: call.error?.message ?? `Not executed (${call.status}).` };
  }
}

/** The text a framework's tool message carries for a refused turn: every call gets the repair notice. */
export function refusalForModel(message: string): string {
  return `Not executed: the whole batch was refused. ${message}`;
}
