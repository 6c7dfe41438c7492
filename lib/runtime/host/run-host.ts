import type { AgentMailbox } from "../agent/agent-mailbox";
import { createAgentModel } from "../agent/agent-model";
import { CLAIM_LOST } from "../agent/agent-tool";
import { startCancelRun } from "../coordinator/cancel-run";
import type { CoordinatorDependencies } from "../coordinator/coordinator-dependencies";
import { checkDecision, startDecision } from "../coordinator/decide";
import type { Decision } from "../coordinator/decision";
import { RunNotFoundError } from "../coordinator/decision-errors";
import { createWaitingRunMemory } from "../coordinator/waiting-run-memory";
import { ToolServerUnavailableError } from "../errors";
import { foldRunEvents } from "../events/run-view";
import type { GrantStore } from "../grants/grant-store";
import { scenarioAgentOf } from "../grants/scenario-agent";
import type { GrantSubject } from "../grants/tool-grant";
import type { CompletionDrafts } from "../model/completion-drafts";
import type { Model, ModelToolCall } from "../model/model";
import { planBatch } from "../planner/plan-batch";
import type { PolicyRun } from "../policy/policy-context";
import type { PolicySource } from "../policy/policy-source";
import { normalizeCalls } from "../run/plan-next-step";
import type { RunEnvironment } from "../run/run-environment";
import { driveRun } from "../run/run-loop";
import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";
import type { RunTelemetry } from "../run/run-telemetry";
import type { RunStatus } from "../run/run-types";
import { withAllowances } from "../run/tool-allowances";
import { InvalidScenarioError } from "../scenario/parse-scenario";
import { refuseLoweredApprovals } from "../scenario/refuse-lowered-approvals";
import type { Scenario } from "../scenario/scenario-schema";
import type { SchemaPattern } from "../tools/safe-reg-exp";
import type { ToolDefinition } from "../tools/tool-definition";
import type { ToolRegistry } from "../tools/tool-registry";
import { normalizeWorkspacePath, type ToolContext } from "../tools/workspace";
import { DEFAULT_LIMITS, type Limits } from "../types";
import { type ExportedScenario, exportRunAsScenario } from "../view/export-scenario";
import {
  checkForkStep,
  type ForkedScenario,
  type ForkOrigin,
  forkRunAsScenario,
} from "../view/fork-scenario";
import { readRunReport } from "../view/run-report";
import { createApprovalDeadlines } from "./approval-deadlines";
import { listRunTools } from "./list-run-tools";
import { recoverExpiredRuns as recoverRuns } from "./recover-expired-runs";
import { withSharedRunReads } from "./shared-run-reads";
import { createScenarioCache, decodeStoredScenario, initialTranscriptOf } from "./stored-scenarios";

/** What a host provides to run scenarios on a store. */
export interface RunHostOptions {
  store: RunStore;
  /** The model a run's scenario names. */
  createModel(scenario: Scenario): Model;
  /** Refuses (throws) a scenario this host cannot run, before anything is stored (say, an unknown model endpoint). */
  checkScenario?(scenario: Scenario): void;
  /** The tools' view of a run's workspace, memory and tasks. */
  createToolContext(runId: string, signal: AbortSignal): ToolContext;
  /** How long a worker's claim on a run holds before another instance may take it over. */
  leaseMs: number;
  /** Separation of duties for every run, whatever its scenario says. */
  requireDistinctApprover?: boolean;
  /** This instance's name in `run_recovered` events (default: a random one). */
  instanceId?: string;
  /** The clock approval deadlines are set and checked by (default `Date.now`; tests move their own). */
  now?(): number;
  /**
   * Whether this host sets a timer for each wait it leaves with a deadline,
   * to announce and expire it on time (default true). The deadline sweep
   * (`sweepApprovalDeadlines`) is the backstop either way: it expires what
   * another instance, or one that stopped, left behind.
   */
  deadlineTimers?: boolean;
  /** Where completions and tool calls are counted and timed (metrics). */
  telemetry?: RunTelemetry;
  /**
   * The tools a scenario enables that are defined elsewhere (its MCP
   * servers'), listed afresh for each worker that drives a run: at its
   * start, at each decision, cancel, expiry and recovery. `problems` names
   * servers that could not be listed: a run does not start with any, and a
   * run that resumes goes on without their tools (their pending calls are
   * then not sent).
   */
  prepareTools?(scenario: Scenario): Promise<{ definitions: ToolDefinition[]; problems: string[] }>;
  /**
   * Judges the regular expressions of tool schemas before a registry is
   * built from them, where that costs this thread nothing (the server's
   * worker thread), keeping each verdict with `recordPatternCheck`. Without
   * it, patterns are judged here as their schemas compile.
   */
  judgePatterns?(patterns: SchemaPattern[]): Promise<void>;
  log?(message: string, detail?: Record<string, unknown>): void;
  /**
   * Where agents that run outside the playground leave their turns and
   * reports (docs/agent-api.md); without one, agent runs cannot be opened.
   * `pollMs`: how often a waiting worker reads it again for what other
   * instances stored (default 250).
   */
  agents?: { mailbox: AgentMailbox; pollMs?: number };
  /**
   * Where a streaming model's output is kept as it is generated, for this
   * process's pages (docs/transcript-and-fork.md#streamed-output); none by default.
   */
  completionDrafts?: CompletionDrafts;
  /** The published approval policies (docs/policies.md); without them, tool declarations alone decide gating. */
  policies?: PolicySource;
  /** Where scoped grants are kept (docs/policies.md#grants); without it, approvals cannot give grants. */
  grants?: GrantStore;
}

/** Who starts a run, when a person does (the CLI runs headless, as nobody). */
export interface RunStarter {
  id: string;
  name: string;
}

/** How a run starts beyond its scenario. */
export interface StartRunOptions {
  /**
   * The recorded run and step it is a fork of (docs/transcript-and-fork.md):
   * checked like reading that run (no such run: `not_found`) and that step
   * (not one of the run's: `invalid_request`), then kept in `run_started`.
   */
  forkedFrom?: ForkOrigin | null;
}

export interface StartedRun {
  runId: string;
  /** Settles when this worker stops driving the run (it waits, or it ended). */
  settled: Promise<RunStatus>;
}

/**
 * Runs scenarios on a store: starts runs, drives them, applies decisions and
 * cancellations through the one coordinator, and reads them back as views and
 * reports. The server wraps one over the database; tests use one over the
 * in-memory store. Nothing here knows which.
 */
export function createRunHost(options: RunHostOptions) {
  const store = withSharedRunReads(options.store);
  const now = options.now ?? Date.now;
  // The drives of runs this process is in now, by run, each with the controller of its step. A
  // cancel aborts the step of every drive of the run here; a drive that lost its claim aborts only
  // its own (this process may have taken the run over since). A drive is forgotten when it ends:
  // nothing is kept for a run once this process stops driving it.
  const drives = new Map<string, Set<DriveSteps>>();

  function stepsOfDrive(runId: string): DriveSteps {
    let step: AbortController | null = null;
    let ended = false;
    const steps: DriveSteps = {
      signal() {
        if (!step || step.signal.aborted) step = new AbortController();
        if (!ended) {
          let ofRun = drives.get(runId);
          if (!ofRun) {
            ofRun = new Set();
            drives.set(runId, ofRun);
          }
          ofRun.add(steps);
        }
        return step.signal;
      },
      abort: (reason) => step?.abort(reason),
      end() {
        ended = true;
        const ofRun = drives.get(runId);
        ofRun?.delete(steps);
        if (ofRun?.size === 0) drives.delete(runId);
      },
    };
    return steps;
  }

  const scenarios = createScenarioCache();
  const { scenarioOf } = scenarios;

  /** The scenario's tools: the built-ins, its own, and those of its servers as they are listed now. */
  function listTools(scenario: Scenario) {
    return listRunTools(scenario, { ...options, now });
  }

  async function registryOf(run: RunRecord): Promise<ToolRegistry> {
    const { registry, problems } = await listTools(scenarioOf(run));
    if (problems.length > 0)
      options.log?.("a run's tool servers could not all be listed", { runId: run.id, problems });
    return registry;
  }

  /** The run as a policy rule sees it (docs/policies.md#what-a-rule-sees). */
  function policyRunOf(run: RunRecord, scenario: Scenario): PolicyRun {
    const agent = scenario.model.kind === "agent" ? scenario.model.agent : null;
    return {
      starter: run.startedById ?? "",
      agent: agent?.name ?? "",
      metadata: { ...(agent?.metadata ?? {}) },
    };
  }

  /**
   * Who a run is to a grant's scope (docs/policies.md#grants): the run, its agent (an outside
   * agent by its owner and name; for the playground's own model, the scenario it runs, by its name
   * and content) and its starter.
   */
  function grantSubjectOf(run: RunRecord): GrantSubject {
    const scenario = scenarioOf(run);
    const subject = { runId: run.id, starter: run.startedById ?? "" };
    if (scenario.model.kind !== "agent")
      return { ...subject, agent: scenarioAgentOf(scenario), agentOwner: null };
    const { agent, openedBy } = scenario.model;
    return {
      ...subject,
      agent: `agent:${agent.name}`,
      agentOwner: { id: openedBy.ownerId, name: openedBy.ownerName },
    };
  }

  async function createEnvironment(
    run: RunRecord,
    claimToken: string,
    listed?: ToolRegistry,
  ): Promise<RunEnvironment> {
    const scenario = scenarioOf(run);
    const steps = stepsOfDrive(run.id);
    return {
      runId: run.id,
      claimToken,
      store,
      model:
        scenario.model.kind === "agent" && options.agents
          ? createAgentModel(run.id, {
              mailbox: options.agents.mailbox,
              pollMs: options.agents.pollMs ?? 250,
              name: `agent:${scenario.model.agent.name}`,
            })
          : options.createModel(scenario),
      registry: listed ?? (await registryOf(run)),
      allowances: { current: run.allowedTools },
      ...(options.grants ? { grants: { store: options.grants, subject: grantSubjectOf(run) } } : {}),
      limits: run.limits,
      ...(options.policies ? { policies: options.policies, policyRun: policyRunOf(run, scenario) } : {}),
      approvalTimeoutSeconds: scenario.approvalTimeoutSeconds ?? null,
      executionPolicy: scenario.executionPolicy,
      now,
      leaseMs: options.leaseMs,
      stepSignal: steps.signal,
      // Said as the reason: an agent's released call stays released for the worker that took the run over.
      abortInFlight: () => steps.abort(CLAIM_LOST),
      endDrive: steps.end,
      createToolContext: (signal) => options.createToolContext(run.id, signal),
      telemetry: options.telemetry,
      ...(options.completionDrafts ? { drafts: draftsOf(options.completionDrafts, run.id) } : {}),
      log: options.log,
    };
  }

  // Waiting runs as this process has just read them: a decision that follows is checked against the row.
  const waitingRuns = createWaitingRunMemory({ now });
  const coordinator: CoordinatorDependencies & { abortInProcess(runId: string): void } = {
    store,
    createEnvironment: (run, claimToken) => createEnvironment(run, claimToken),
    registryOf,
    now,
    createClaimToken: () => crypto.randomUUID(),
    leaseMs: options.leaseMs,
    ...(options.grants ? { grants: options.grants } : {}),
    grantSubjectOf,
    requiresDistinctApprover: (run) =>
      options.requireDistinctApprover === true || scenarioOf(run).policy?.requireDistinctApprover === true,
    claimsInFlight: new Set(),
    waitingRuns,
    log: options.log,
    abortInProcess: (runId) => {
      for (const steps of drives.get(runId) ?? []) steps.abort();
    },
  };

  const instanceId = options.instanceId ?? `instance-${crypto.randomUUID().slice(0, 8)}`;

  const { sweepApprovalDeadlines, watchDeadline } = createApprovalDeadlines({
    store,
    coordinator,
    now,
    timers: options.deadlineTimers !== false,
    scenarios,
  });

  /** Takes over RUNNING runs whose worker is gone (see `recover-expired-runs.ts`); each goes on in `settled`. */
  const recoverExpiredRuns = (sweep: { limit?: number; runId?: string } = {}) =>
    recoverRuns(
      {
        store,
        leaseMs: options.leaseMs,
        instanceId,
        scenarioOf,
        createEnvironment: (run, claimToken) => createEnvironment(run, claimToken),
        watchDeadline,
        log: options.log,
      },
      sweep,
    );

  /**
   * A cancel is stored on a running run and taken by whichever worker holds
   * it. A run whose worker is gone has nobody to take it: it is taken over
   * here and now, and the recovering worker applies the cancel at once.
   */
  async function startCancel(runId: string, scope: "turn" | "run"): Promise<{ settled: Promise<RunStatus> }> {
    const started = await startCancelRun(runId, scope, coordinator);
    const [recovery] = await recoverExpiredRuns({ runId, limit: 1 });
    return recovery ? { settled: recovery.settled } : { settled: watchDeadline(runId, started.settled) };
  }

  /** Starts a run of a scenario; an agent's run is opened with {@link startAgentRun} only. */
  async function startRun(
    scenario: Scenario,
    startedBy: RunStarter | null = null,
    startOptions: StartRunOptions = {},
  ): Promise<StartedRun> {
    if (scenario.model.kind === "agent") {
      throw new InvalidScenarioError([
        { path: "model.kind", message: "agent runs are opened by an agent's token at POST /api/agent/runs" },
      ]);
    }
    return start(scenario, startedBy, startOptions);
  }

  /** Opens an agent's run (docs/agent-api.md): its worker waits for the agent's first turn. */
  async function startAgentRun(scenario: Scenario, startedBy: RunStarter | null): Promise<StartedRun> {
    if (scenario.model.kind !== "agent" || !options.agents) {
      throw new InvalidScenarioError([{ path: "model.kind", message: "this host does not serve agents" }]);
    }
    if (scenario.executionPolicy !== "barriers") {
      throw new InvalidScenarioError([
        { path: "executionPolicy", message: "agent runs use the barriers policy" },
      ]);
    }
    return start(scenario, startedBy);
  }

  /**
   * Plans a batch of calls as the run's next step would be planned now (same
   * registry, grants and limits), without storing or executing anything: what
   * an agent's turn is checked with before it is accepted.
   */
  async function planTurn(runId: string, calls: readonly ModelToolCall[], stepIndex: number) {
    const run = await store.getRun(runId);
    if (!run) return null;
    const { registry } = await listTools(scenarioOf(run));
    const normalized = normalizeCalls(calls, stepIndex);
    if (normalized.length === 0) return null;
    const live = options.policies ? (await options.policies.current()).live : null;
    return planBatch(
      normalized,
      withAllowances(registry, run.allowedTools),
      run.limits,
      live ? { active: live, run: policyRunOf(run, scenarioOf(run)), now: new Date(now()) } : undefined,
    );
  }

  /** The run a fork comes from, as one who reads it would find it, and the step it starts again at. */
  async function readForkOrigin(runId: string, step: unknown) {
    const events = await store.readEvents(runId, 0);
    if (events.length === 0) throw new RunNotFoundError(runId);
    const view = foldRunEvents(runId, events);
    return { view, step: checkForkStep(view, step) };
  }

  async function start(
    scenario: Scenario,
    startedBy: RunStarter | null = null,
    startOptions: StartRunOptions = {},
  ): Promise<StartedRun> {
    const forkedFrom = startOptions.forkedFrom
      ? {
          runId: startOptions.forkedFrom.runId,
          step: (await readForkOrigin(startOptions.forkedFrom.runId, startOptions.forkedFrom.step)).step,
        }
      : null;
    options.checkScenario?.(scenario);
    refuseLoweredApprovals(scenario, { requireDistinctApprover: options.requireDistinctApprover === true });
    // Listed before anything is stored: a run never starts without the tools its scenario enables.
    const { registry, problems } = await listTools(scenario);
    if (problems.length > 0) throw new ToolServerUnavailableError(problems);
    const limits: Limits = { ...DEFAULT_LIMITS, ...scenario.limits };
    const runId = crypto.randomUUID();
    const claimToken = crypto.randomUUID();
    await store.createRun({
      id: runId,
      name: scenario.name,
      scenario,
      limits,
      claimToken,
      leaseMs: options.leaseMs,
      startedBy,
      mcpServers: scenario.mcpServers ?? [],
      forkedFrom,
      // The scenario schema has already refused paths that leave the workspace.
      files: Object.entries(scenario.workspace).map(([path, content]) => ({
        path: normalizeWorkspacePath(path),
        content,
      })),
    });
    const run = await store.getRun(runId);
    if (!run) throw new Error(`run ${runId} vanished after it was stored`);
    const settled = driveRun(await createEnvironment(run, claimToken, registry), {
      transcript: initialTranscriptOf(scenario),
      modelCalls: 0,
      nextStepIndex: 0,
    });
    return { runId, settled: watchDeadline(runId, settled) };
  }

  return {
    startRun,
    startAgentRun,
    planTurn,
    /**
     * Applies a decision and answers once the run next waits or ends (HTTP API, CLI); an agent's run,
     * once the decision took effect (RUNNING: what comes next is the agent's to do).
     */
    async decide(runId: string, decision: Decision) {
      const { settled, ...started } = await startDecision(runId, decision, coordinator);
      const status = watchDeadline(runId, settled);
      // An agent's run goes on in the agent's hands (the released calls' reports, its next turn),
      // which may take minutes or never come: the answer says it runs on instead of waiting for that.
      if (started.outcome !== "counted" && scenarios.known(runId)?.model.kind === "agent") {
        status.catch((error: unknown) =>
          options.log?.("an agent's run failed after a decision", { runId, error: String(error) }),
        );
        return { ...started, status: "RUNNING" as const };
      }
      return { ...started, status: await status };
    },
    /** Applies a decision and answers once it has taken effect; the run goes on in `settled`. */
    async startDecision(runId: string, decision: Decision) {
      const started = await startDecision(runId, decision, coordinator);
      return { ...started, settled: watchDeadline(runId, started.settled) };
    },
    sweepApprovalDeadlines,
    /** Checks a decision as it would be checked before its claim, claiming nothing; throws its refusal. */
    async checkDecision(runId: string, decision: Decision): Promise<void> {
      await checkDecision(runId, decision, coordinator);
    },
    /** Cancels a turn or the run and answers once the run next waits or ends (or, if it is running, at once). */
    async cancelRun(runId: string, scope: "turn" | "run") {
      return { status: await (await startCancel(runId, scope)).settled };
    },
    recoverExpiredRuns,
    /**
     * Revokes a run's grant of a tool ("always allow"), whoever holds the run:
     * its calls wait for a decision again from the run's next step. False
     * when the run has no such grant.
     */
    revokeToolAllowance: (runId: string, toolName: string, by: { actor: string; actorId: string | null }) =>
      store.revokeToolAllowance(runId, toolName, by),
    /** Cancels and answers once the cancellation has taken effect; the run goes on in `settled`. */
    startCancelRun: startCancel,
    /** Aborts what this process has in flight for a run (a model call, tools) after a cancel elsewhere. */
    abortInProcess: coordinator.abortInProcess,
    /** How many runs this process is driving now (a step of theirs has started and the drive goes on). */
    runsDrivenHere: () => drives.size,
    /** The run as it is now; a waiting one is remembered for a decision that follows (waiting-run-memory.ts). */
    async getRun(runId: string) {
      const run = await store.getRun(runId);
      if (run) waitingRuns.remember(run);
      return run;
    },
    readEvents: (runId: string, afterSeq: number, limit?: number) => store.readEvents(runId, afterSeq, limit),
    async loadView(runId: string) {
      const events = await store.readEvents(runId, 0);
      // Every run starts with run_started in the transaction that creates it.
      return events.length === 0 ? null : foldRunEvents(runId, events);
    },
    getReport: (runId: string) => readRunReport(store, runId),
    /** The run as a scripted scenario that replays it (see `exportRunAsScenario`), or null when there is no such run. */
    async exportScenario(runId: string): Promise<ExportedScenario | null> {
      const [run, events] = await Promise.all([store.getRun(runId), store.readEvents(runId, 0)]);
      if (!run || events.length === 0) return null;
      return exportRunAsScenario(decodeStoredScenario(run), foldRunEvents(runId, events));
    },
    /**
     * The run as the scenario of a fork from `step` (1-based; see
     * `forkRunAsScenario`), or null when there is no such run; a step the run
     * does not have throws `ForkStepOutOfRangeError`.
     */
    async forkScenario(runId: string, step: unknown): Promise<ForkedScenario | null> {
      const [run, events] = await Promise.all([store.getRun(runId), store.readEvents(runId, 0)]);
      if (!run || events.length === 0) return null;
      return forkRunAsScenario(decodeStoredScenario(run), foldRunEvents(runId, events), step);
    },
  };
}

export type RunHost = ReturnType<typeof createRunHost>;

/** The step signals of one drive of a run by this process (see `drives` in {@link createRunHost}). */
interface DriveSteps {
  /** The current step's signal: a fresh one once the last was aborted. */
  signal(): AbortSignal;
  abort(reason?: unknown): void;
  /** The drive is over: the process forgets it. */
  end(): void;
}

/** One run's side of the process's drafts. */
function draftsOf(drafts: CompletionDrafts, runId: string): NonNullable<RunEnvironment["drafts"]> {
  return {
    publish: (stepIndex, partial) => drafts.publish(runId, stepIndex, partial),
    end: () => drafts.end(runId),
  };
}
