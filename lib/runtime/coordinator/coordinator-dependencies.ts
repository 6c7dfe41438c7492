import type { GrantStore } from "../grants/grant-store";
import type { GrantSubject } from "../grants/tool-grant";
import type { RunEnvironment } from "../run/run-environment";
import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";
import type { ToolRegistry } from "../tools/tool-registry";
import type { WaitingRunMemory } from "./waiting-run-memory";

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
  /** Where scoped grants are kept (docs/policies.md#grants); without it, a decision asking for one is refused. */
  grants?: GrantStore;
  /** Who `run` is to a grant's scope: the run, its agent, its starter. */
  grantSubjectOf?(run: RunRecord): GrantSubject;
  /** Separation of duties: true when whoever started `run` may not approve its gated calls. */
  requiresDistinctApprover(run: RunRecord): boolean;
  /**
   * Runs this process is claiming for a decision right now. Another decision
   * on one of them, here, cannot win: it is refused at once, without reading
   * or claiming anything (concurrent decisions never queue behind each other).
   */
  claimsInFlight?: Set<string>;
  /** Waiting runs' rows this process has just read, which a decision may be checked against instead of a fresh read. */
  waitingRuns?: WaitingRunMemory;
  log?(message: string, detail?: Record<string, unknown>): void;
}
