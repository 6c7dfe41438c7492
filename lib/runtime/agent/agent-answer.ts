/**
 * What an agent is told (docs/agent-api.md): the one answer of every agent request,
 * the calls released to it and the outcome of its last turn, and the token it sends.
 */

import type { RunError, RunStatus } from "../run/run-types";
import type { Plan } from "../types";

/** The token an agent sends, as the server knows it: never taken from the request body. */
export interface AgentIdentity {
  tokenId: string;
  tokenName: string;
  ownerId: string;
  ownerName: string;
}

/** One call released to the agent: execute it with `arguments`, report with `releaseToken`. */
export interface ReleaseView {
  releaseToken: string;
  attempt: number;
  callId: string;
  batchIndex: number;
  name: string;
  /** The arguments to execute with: the model's raw text, or what an approver changed them to. */
  arguments: string;
  /** True when an approver changed the arguments before approving. */
  edited: boolean;
  leaseExpiresAt: string;
}

/** One call of a turn as the agent's model is told of it, in call order. */
export interface CallOutcomeView {
  callId: string;
  batchIndex: number;
  name: string;
  status:
    | "ok"
    | "error"
    | "denied"
    | "invalidated"
    | "expired"
    | "interrupted"
    | "not_dispatched"
    | "pending"
    | "running";
  /** The arguments that ran (an approver's edit, when `edited`). */
  arguments: string;
  edited: boolean;
  result: unknown;
  error: RunError | null;
  /** A denial's reply to the model, from the approver. */
  reply: string | null;
  /** Who executed it: the agent (its declared tools) or the server (built-ins, MCP servers). */
  executedBy: "agent" | "server";
}

export interface TurnOutcome {
  turn: number;
  plan: Plan;
  calls: CallOutcomeView[];
}

/** "What may I do now?": the one answer of every agent request. */
export interface AgentNext {
  runId: string;
  status: RunStatus;
  /**
   * `execute`: run `releases` and report each; `wait`: ask again (a person
   * decides, or the server works); `submit_turn`: send turn `turn` (or finish);
   * `finished`: the run ended.
   */
  next: "execute" | "wait" | "submit_turn" | "finished";
  /** The turn in progress, the one to submit next (`submit_turn`), or the last one (`finished`). */
  turn: number;
  waitingFor: "approval" | "server" | null;
  releases: ReleaseView[];
  /** The plan of the turn in progress (waves, barriers, problems); null between turns. */
  plan: Plan | null;
  /** The outcome of the last finished turn, in call order: what to tell the model. */
  outcome: TurnOutcome | null;
  /** Why a run ended FAILED. */
  error: RunError | null;
  /**
   * Names this answer: the same while nothing the agent acts on changed.
   * Pass it back as `after` to a long poll to be answered at the next change
   * (the wait for a person beginning, releases, the outcome) and not before.
   */
  version: string;
}
