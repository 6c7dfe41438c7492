/**
 * The shapes of a run as its store holds them: what the run loop reads back
 * and what it hands the store to write. Data only; the store's methods are in
 * `run-store.ts`.
 */
import type { CompletionRecord } from "../model/model";
import type { PreflightedCall } from "../planner/preflight";
import type { Limits, Plan } from "../types";
import type { CallStatus, RunError, RunStatus, StepMetrics } from "./run-types";
import type { ToolAllowances } from "./tool-allowances";

/** A run as the runtime needs it. `state` is raw: decode it with `decodeSuspendedState`. */
export interface RunRecord {
  id: string;
  status: RunStatus;
  /** The scenario the run was started from, opaque to the runtime: its host decodes it. */
  scenario: unknown;
  limits: Limits;
  modelCalls: number;
  state: unknown;
  /** The user who started the run, when the host knows one. */
  startedById: string | null;
  /** True when the run is RUNNING and its claim's lease has run out: its worker is gone. */
  leaseExpired: boolean;
  /** Tools granted for the rest of the run ("always allow"), by name. */
  allowedTools: ToolAllowances;
  /**
   * Opaque; different after any change to the stored run. A decision read at
   * one version can be claimed and recorded in one write while the run is
   * still at it (`ApprovalStore.claimAndRecordDecision`).
   */
  version: string;
}

/** The outcome `RunStore.forceFail` stores for a call its run had started and never settled. */
export const INTERRUPTED_BY_FAILURE: RunError = {
  code: "interrupted",
  message: "The run failed while this call ran; its outcome is unknown and it was not retried.",
};

/** A run this worker has just taken over, and the claim it now holds. */
export interface ClaimedRunRecord {
  run: RunRecord;
  claimToken: string;
}

/** A run about to start, claimed by the worker that creates it. */
export interface NewRun {
  id: string;
  name: string;
  scenario: unknown;
  limits: Limits;
  claimToken: string;
  leaseMs: number;
  startedBy: { id: string; name: string } | null;
  /** The operator's MCP servers whose tools it may use (its scenario's `mcpServers`); none when absent. */
  mcpServers?: string[];
  /** The run and step (1-based) it was forked from, when it was (docs/transcript-and-fork.md); none when absent. */
  forkedFrom?: { runId: string; step: number } | null;
  /** The run's workspace files, paths already normalised. */
  files: Array<{ path: string; content: string }>;
}

/** A step the model planned, with its calls, as the store records it. */
export interface NewStep {
  index: number;
  /** The completion the step comes from: its latency, usage and the preamble the model read. */
  completion: CompletionRecord;
  text: string | null;
  plan: Plan;
  metrics: StepMetrics;
  calls: Array<{ call: PreflightedCall; status: CallStatus; error: RunError | null }>;
}
