import type { AgentMailbox } from "../agent/agent-mailbox";
import { createAgentModel } from "../agent/agent-model";
import { CLAIM_LOST, createAgentTool } from "../agent/agent-tool";
import { startCancelRun } from "../coordinator/cancel-run";
import { readPendingTurn } from "../coordinator/claim-waiting-run";
import type { CoordinatorDependencies } from "../coordinator/coordinator-dependencies";
import { checkDecision, type Decision, startDecision } from "../coordinator/decide";
import { expireWait } from "../coordinator/expire-wait";
import { RuntimeError, ToolConfigurationError, ToolServerUnavailableError } from "../errors";
import type { Model, ModelToolCall, TranscriptEntry } from "../model/model";
import { planBatch } from "../plan-batch";
import { describeFirstIssue, UnreadableRunError } from "../run/persisted-schemas";
import { normalizeCalls } from "../run/plan-next-step";
import { recoverRun } from "../run/recover-run";
import type { RunEnvironment } from "../run/run-environment";
import { driveRun } from "../run/run-loop";
import type { RunRecord, RunStore } from "../run/run-store";
import type { RunTelemetry } from "../run/run-telemetry";
import type { RunStatus } from "../run/run-types";
import { withAllowances } from "../run/tool-allowances";
import { InvalidScenarioError } from "../scenario/parse-scenario";
import { refuseLoweredApprovals } from "../scenario/refuse-lowered-approvals";
import { type Scenario, scenarioSchema } from "../scenario/scenario-schema";
import { findSchemaPatterns, type SchemaPattern } from "../tools/safe-reg-exp";
import type { ToolDefinition } from "../tools/tool-definition";
import { createToolRegistry, type ToolRegistry } from "../tools/tool-registry";
import { normalizeWorkspacePath, type ToolContext } from "../tools/workspace";
import { inSpan, runTraceContext } from "../tracing";
import { DEFAULT_LIMITS, type Limits } from "../types";
import { type ExportedScenario, exportRunAsScenario } from "../view/export-scenario";
import { readRunReport } from "../view/run-report";
import { foldRunEvents } from "../view/run-view";

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
}

/** Who starts a run, when a person does (the CLI runs headless, as nobody). */
export interface RunStarter {
  id: string;
  name: string;
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
  const stepControllers = new Map<string, AbortController>();

  function stepSignal(runId: string): AbortSignal {
    let controller = stepControllers.get(runId);
    if (!controller || controller.signal.aborted) {
      controller = new AbortController();
      stepControllers.set(runId, controller);
    }
    return controller.signal;
  }

  // A run's scenario never changes: decoded once per run (of the most recent runs), not at every decision.
  const scenarios = new Map<string, Scenario>();
  function scenarioOf(run: RunRecord): Scenario {
    let scenario = scenarios.get(run.id);
    if (!scenario) {
      scenario = decodeStoredScenario(run);
      scenarios.set(run.id, scenario);
      const oldest = scenarios.keys().next().value;
      if (scenarios.size > 1_000 && oldest !== undefined) scenarios.delete(oldest);
    }
    return scenario;
  }

  /** The scenario's tools: the built-ins, its own, and those of its servers as they are listed now. */
  async function listTools(scenario: Scenario) {
    const prepared = options.prepareTools
      ? await options.prepareTools(scenario)
      : { definitions: [], problems: [] };
    const problems = [...prepared.problems];
    const agents = options.agents;
    // An agent's declared tools are executed by the agent: released to it, their outcomes its reports.
    const agentTools =
      scenario.model.kind === "agent" && agents
        ? scenario.tools.map((tool) =>
            createAgentTool(tool, {
              mailbox: agents.mailbox,
              releaseLeaseMs:
                scenario.model.kind === "agent" ? scenario.model.releaseLeaseSeconds * 1_000 : 60_000,
              pollMs: agents.pollMs ?? 250,
              now,
            }),
          )
        : [];
    let definitions = [...agentTools, ...prepared.definitions];
    await options.judgePatterns?.(
      [...scenario.tools, ...definitions].flatMap((tool) => findSchemaPatterns(tool.parameters)),
    );
    // A tool from elsewhere that cannot be offered (a schema that does not compile, a name that
    // collides) is left out and named, never a failure of the run: the scenario's own tools were
    // checked when it was accepted, so the registry always builds without the others.
    for (;;) {
      try {
        const registry = createToolRegistry({
          definitions,
          tools: agentTools.length > 0 ? [] : scenario.tools,
          approvals: scenario.approvals,
        });
        return { registry, problems };
      } catch (error) {
        const refused = ToolConfigurationError.isInstance(error)
          ? definitions.find((definition) => definition.name === error.toolName)
          : undefined;
        if (!refused || !(error instanceof Error)) throw error;
        definitions = definitions.filter((definition) => definition !== refused);
        problems.push(`${refused.name} cannot be offered: ${error.message}.`);
      }
    }
  }

  async function registryOf(run: RunRecord): Promise<ToolRegistry> {
    const { registry, problems } = await listTools(scenarioOf(run));
    if (problems.length > 0)
      options.log?.("a run's tool servers could not all be listed", { runId: run.id, problems });
    return registry;
  }

  async function createEnvironment(
    run: RunRecord,
    claimToken: string,
    listed?: ToolRegistry,
  ): Promise<RunEnvironment> {
    const scenario = scenarioOf(run);
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
      limits: run.limits,
      approvalTimeoutSeconds: scenario.approvalTimeoutSeconds ?? null,
      executionPolicy: scenario.executionPolicy,
      now,
      leaseMs: options.leaseMs,
      stepSignal: () => stepSignal(run.id),
      // Said as the reason: an agent's released call stays released for the worker that took the run over.
      abortInFlight: () => stepControllers.get(run.id)?.abort(CLAIM_LOST),
      createToolContext: (signal) => options.createToolContext(run.id, signal),
      telemetry: options.telemetry,
      log: options.log,
    };
  }

  const coordinator: CoordinatorDependencies & { abortInProcess(runId: string): void } = {
    store,
    createEnvironment: (run, claimToken) => createEnvironment(run, claimToken),
    registryOf,
    now,
    createClaimToken: () => crypto.randomUUID(),
    leaseMs: options.leaseMs,
    requiresDistinctApprover: (run) =>
      options.requireDistinctApprover === true || scenarioOf(run).policy?.requireDistinctApprover === true,
    claimsInFlight: new Set(),
    log: options.log,
    abortInProcess: (runId) => stepControllers.get(runId)?.abort(),
  };

  const instanceId = options.instanceId ?? `instance-${crypto.randomUUID().slice(0, 8)}`;

  /**
   * Announces waits in their last fifth and expires waits past their
   * deadline (at most `limit` of each), wherever they were left. Resolves
   * with the runs it expired; each goes on in `settled`.
   */
  async function sweepApprovalDeadlines(
    sweep: { limit?: number } = {},
  ): Promise<Array<{ runId: string; settled: Promise<RunStatus> }>> {
    const limit = sweep.limit ?? 20;
    await store.announceExpiringWaits(limit);
    const expired: Array<{ runId: string; settled: Promise<RunStatus> }> = [];
    for (const runId of await store.listExpiredWaits(limit)) {
      const expiry = await expireWait(runId, coordinator);
      if (expiry) expired.push({ runId, settled: watchDeadline(runId, expiry.settled) });
    }
    return expired;
  }

  /**
   * Passes a run's `settled` through; when the run is left waiting with a
   * deadline, sets timers to announce the wait's last fifth and to expire it
   * on time (unref'd: they never keep a process alive).
   */
  function watchDeadline(runId: string, settled: Promise<RunStatus>): Promise<RunStatus> {
    if (options.deadlineTimers === false) return settled;
    void settled.then(
      async (status) => {
        if (status !== "WAITING_FOR_APPROVAL") return;
        const known = scenarios.get(runId);
        if (known && !hasApprovalTimeouts(known)) return;
        const run = await store.getRun(runId);
        if (!run || !hasApprovalTimeouts(scenarioOf(run))) return;
        const expiresAt = readPendingTurn(run)?.expiresAt;
        if (!expiresAt) return;
        const left = Date.parse(expiresAt) - now();
        const at = (delay: number, work: () => Promise<unknown>) => {
          const timer = setTimeout(() => void work().catch(() => {}), Math.max(0, delay));
          (timer as { unref?: () => void }).unref?.();
        };
        at(left * 0.8, () => store.announceExpiringWaits(20));
        at(left + 5, async () => {
          const expiry = await expireWait(runId, coordinator);
          if (expiry) await watchDeadline(runId, expiry.settled);
        });
      },
      () => {},
    );
    return settled;
  }

  /**
   * Takes over RUNNING runs whose worker is gone (lease run out), at most
   * `limit`, or just `runId`, and goes on with each from what is stored. The
   * sweep every instance runs; other instances sweeping at once never take
   * the same run. Resolves with the runs taken; each goes on in `settled`.
   */
  async function recoverExpiredRuns(
    sweep: { limit?: number; runId?: string } = {},
  ): Promise<Array<{ runId: string; settled: Promise<RunStatus> }>> {
    const claimed = await store.claimExpiredRuns({
      leaseMs: options.leaseMs,
      limit: sweep.limit ?? 20,
      runId: sweep.runId,
    });
    return claimed.map(({ run, claimToken }) => ({
      runId: run.id,
      settled: watchDeadline(run.id, recoverClaimed(run, claimToken)),
    }));
  }

  async function recoverClaimed(run: RunRecord, claimToken: string): Promise<RunStatus> {
    let environment: RunEnvironment;
    let scenario: Scenario;
    try {
      scenario = scenarioOf(run);
      environment = await createEnvironment(run, claimToken);
    } catch (error) {
      const runError = RuntimeError.isInstance(error)
        ? { code: error.code, message: error.message }
        : {
            code: "internal_error",
            message: "The run could not be recovered; the server log has the details.",
          };
      options.log?.("a run could not be recovered", { runId: run.id, ...runError });
      await store.forceFail(run.id, runError);
      return "FAILED";
    }
    const recovering = environment;
    return inSpan(
      "recovery",
      { "tool_playground.run.id": run.id, "tool_playground.instance": instanceId },
      () => recoverRun(recovering, run, { by: instanceId, initialTranscript: initialTranscriptOf(scenario) }),
      runTraceContext(run.id),
    );
  }

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
  async function startRun(scenario: Scenario, startedBy: RunStarter | null = null): Promise<StartedRun> {
    if (scenario.model.kind === "agent") {
      throw new InvalidScenarioError([
        { path: "model.kind", message: "agent runs are opened by an agent's token at POST /api/agent/runs" },
      ]);
    }
    return start(scenario, startedBy);
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
    return normalized.length === 0
      ? null
      : planBatch(normalized, withAllowances(registry, run.allowedTools), run.limits);
  }

  async function start(scenario: Scenario, startedBy: RunStarter | null = null): Promise<StartedRun> {
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
    /** Applies a decision and answers once the run next waits or ends (HTTP API, CLI). */
    async decide(runId: string, decision: Decision) {
      const { outcome, settled } = await startDecision(runId, decision, coordinator);
      return { outcome, status: await watchDeadline(runId, settled) };
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
    getRun: (runId: string) => store.getRun(runId),
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
  };
}

export type RunHost = ReturnType<typeof createRunHost>;

/**
 * The store, with concurrent reads of one run sharing one query: a burst of
 * decisions on a run reads it once. A read that starts while another is under
 * way gets that one's answer, a moment older than a fresh read would be;
 * every caller treats a read as a snapshot the claim re-checks, and nothing
 * is kept once it has answered.
 */
function withSharedRunReads(store: RunStore): RunStore {
  const reading = new Map<string, Promise<RunRecord | null>>();
  return {
    ...store,
    getRun(runId) {
      let read = reading.get(runId);
      if (!read) {
        read = store.getRun(runId);
        reading.set(runId, read);
        const forget = () => reading.delete(runId);
        read.then(forget, forget);
      }
      return read;
    },
  };
}

/** Whether any wait of this scenario can expire. */
function hasApprovalTimeouts(scenario: Scenario): boolean {
  return (
    scenario.approvalTimeoutSeconds !== undefined ||
    scenario.tools.some((tool) => tool.approvalTimeoutSeconds !== undefined)
  );
}

/** What the model has been told before its first completion: a real model's prompt; nothing for a script. */
function initialTranscriptOf(scenario: Scenario): TranscriptEntry[] {
  return scenario.model.kind === "openai-compatible" ? [{ role: "user", text: scenario.model.prompt }] : [];
}

/** A run's stored scenario, decoded: it was valid when the run started, and must still be. */
export function decodeStoredScenario(run: RunRecord): Scenario {
  const parsed = scenarioSchema.safeParse(run.scenario);
  if (!parsed.success) throw new UnreadableRunError(run.id, `scenario: ${describeFirstIssue(parsed.error)}`);
  return parsed.data;
}
