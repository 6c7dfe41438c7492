import type { GrantStore } from "../grants/grant-store";
import type { GrantSubject } from "../grants/tool-grant";
import type { Model, PartialCompletion } from "../model/model";
import type { PolicyRun } from "../policy/policy-context";
import type { PolicySource } from "../policy/policy-source";
import type { ToolRegistry } from "../tools/tool-registry";
import type { ToolContext } from "../tools/workspace";
import type { Limits } from "../types";
import type { RunStore } from "./run-store";
import type { RunTelemetry } from "./run-telemetry";
import type { ToolAllowances } from "./tool-allowances";

/** Everything a worker needs to drive one run it has claimed. */
export interface RunEnvironment {
  runId: string;
  claimToken: string;
  store: RunStore;
  model: Model;
  registry: ToolRegistry;
  /** The run's grants ("always allow") as this worker last read them: planning consults them. */
  allowances: { current: ToolAllowances };
  /** The scoped grants (docs/policies.md#grants) and who this run is to their scopes; none: only the run's own. */
  grants?: { store: GrantStore; subject: GrantSubject };
  limits: Limits;
  /** The published policies (docs/policies.md), read once per planned batch; none: the declarations decide. */
  policies?: PolicySource;
  /** The run as a policy rule sees it. */
  policyRun?: PolicyRun;
  /** The scenario's `approvalTimeoutSeconds`: how long a wait lasts when the barrier's tool sets none. */
  approvalTimeoutSeconds: number | null;
  /** `legacy`: plan as the policy this product replaces, for comparison (see the scenario's `executionPolicy`). */
  executionPolicy: "barriers" | "legacy";
  /** The clock deadlines are set by (ms since the epoch). */
  now(): number;
  /** How long the claim's lease lasts; the worker renews it every third of that while it drives the run. */
  leaseMs: number;
  /** The abort signal of the step about to run; aborted when its turn or run is cancelled. */
  stepSignal(): AbortSignal;
  /** Aborts whatever this worker has in flight for the run (a model call, tools): it lost the run. */
  abortInFlight(): void;
  /** The drive is over (the run waits, ended, or this worker stopped): what it held for the run can go. */
  endDrive(): void;
  /** The tools' view of the run's workspace, memory and tasks. */
  createToolContext(signal: AbortSignal): ToolContext;
  /** Where completions and tool calls are counted and timed (metrics); nothing when absent. */
  telemetry?: RunTelemetry;
  /**
   * Where a streaming model's output goes as it is generated (this process's
   * drafts, docs/transcript-and-fork.md#streamed-output); nothing when absent.
   */
  drafts?: {
    publish(stepIndex: number, partial: PartialCompletion | null): void;
    end(): void;
  };
  /** Where the runtime reports what it handled but callers may want to know (defaults to nothing). */
  log?(message: string, detail?: Record<string, unknown>): void;
}
