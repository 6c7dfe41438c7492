import type { RunEnvironment } from "../run/run-environment";
import type { RunRecord, RunStore } from "../run/run-store";
import type { ToolRegistry } from "../tools/tool-registry";

/** What the coordinator needs from its host. */
export interface CoordinatorDependencies {
  store: RunStore;
  /** The environment a worker holding `claimToken` drives `run` with (model, tools as listed now, limits, …). */
  createEnvironment(run: RunRecord, claimToken: string): Promise<RunEnvironment>;
  /** The tools of `run`'s scenario, as listed now (edited arguments are checked with them). */
  registryOf(run: RunRecord): Promise<ToolRegistry>;
  /** The clock approval deadlines are checked by (ms since the epoch). */
  now(): number;
  /** A fresh, unguessable claim token. */
  createClaimToken(): string;
  /** How long a claim holds before another instance may recover the run. */
  leaseMs: number;
  /** Separation of duties: true when whoever started `run` may not approve its gated calls. */
  requiresDistinctApprover(run: RunRecord): boolean;
  /**
   * Runs this process is claiming for a decision right now. Another decision
   * on one of them, here, cannot win: it is refused at once, without reading
   * or claiming anything (concurrent decisions never queue behind each other).
   */
  claimsInFlight?: Set<string>;
  log?(message: string, detail?: Record<string, unknown>): void;
}
