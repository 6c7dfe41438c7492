/**
 * A run's view as the agent is told of it (docs/agent-api.md): a released call, a
 * finished turn in call order, and the version that names an answer.
 */

import type { RunView, StepView } from "../events/run-view";
import { canonicalJson, sha256Hex } from "../turn-digest";
import type { AgentNext, ReleaseView, TurnOutcome } from "./agent-answer";
import type { AgentRelease } from "./agent-mailbox";
import { INTERRUPTED_CODE } from "./agent-tool";

/** A short digest of what the agent acts on in an answer. */
export function versionOf(answer: Omit<AgentNext, "version">): string {
  return sha256Hex(
    canonicalJson({
      next: answer.next,
      status: answer.status,
      turn: answer.turn,
      waitingFor: answer.waitingFor,
      releases: answer.releases.map((release) => release.releaseToken),
    }),
  ).slice(0, 16);
}

/** A call released to the agent, as it is told of it. */
export function releaseView(release: AgentRelease, step: StepView): ReleaseView {
  const call = step.calls[release.batchIndex];
  return {
    releaseToken: release.token,
    attempt: release.attempt,
    callId: release.callId,
    batchIndex: release.batchIndex,
    name: release.name,
    arguments: release.arguments,
    edited: (call?.editedArguments ?? null) !== null,
    leaseExpiresAt: release.leaseExpiresAt,
  };
}

/** A finished turn, in call order, as the agent tells its model. */
export function outcomeOf(step: StepView, view: RunView, agentTools: ReadonlySet<string>): TurnOutcome {
  return {
    turn: step.index,
    plan: step.plan,
    calls: step.calls.map((call) => {
      const denial =
        call.status === "denied"
          ? view.decisions.find(
              (decision) =>
                decision.stepIndex === step.index &&
                !decision.approve &&
                decision.gates.includes(call.batchIndex),
            )
          : undefined;
      return {
        callId: call.id,
        batchIndex: call.batchIndex,
        name: call.name,
        status:
          call.status === "error" && call.error?.code === INTERRUPTED_CODE ? "interrupted" : call.status,
        arguments: call.editedArguments ?? call.arguments,
        edited: call.editedArguments !== null,
        result: call.result,
        error: call.error,
        reply: denial?.reason ?? null,
        executedBy: agentTools.has(call.name) ? "agent" : "server",
      };
    }),
  };
}
