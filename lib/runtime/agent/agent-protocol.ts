/**
 * The agent protocol (docs/agent-api.md): an agent that runs outside the
 * playground opens a run, submits its model's turns, executes the calls the
 * run releases to it and reports their outcomes. Everything else — planning,
 * waves, barriers, approvals, invalidation, the audit, recovery — is the run
 * loop's, unchanged: the agent's turns are its model's completions and its
 * tools are released through the mailbox (`agent-model.ts`, `agent-tool.ts`).
 */

import type { RunHost } from "../host/run-host";
import { decodeStoredScenario } from "../host/stored-scenarios";
import { formatRepairNotice } from "../run/plan-next-step";
import type { RunRecord } from "../run/run-records";
import type { RunStatus } from "../run/run-types";
import { parseScenarioValue } from "../scenario/parse-scenario";
import type { Scenario } from "../scenario/scenario-schema";
import { canonicalJson, sha256Hex } from "../turn-digest";
import type { PlanProblem } from "../types";
import type { AgentIdentity, AgentNext } from "./agent-answer";
import { AgentProtocolError } from "./agent-errors";
import type { AgentMailbox, AgentReport, AgentTurnRecord } from "./agent-mailbox";
import type { AgentReportInput, AgentTurnInput, OpenAgentRunInput } from "./agent-schemas";
import { digestTurn, refuseDuplicateIds } from "./check-agent-turn";
import { outcomeOf, releaseView, versionOf } from "./describe-agent-answer";

const FINAL_STATUSES = new Set<RunStatus>(["COMPLETED", "FAILED", "CANCELLED"]);

export interface AgentProtocolOptions {
  host: Pick<RunHost, "startAgentRun" | "planTurn" | "getRun" | "loadView" | "startCancelRun">;
  mailbox: AgentMailbox;
  /** How often a long poll reads again for changes other instances made (default 200 ms). */
  pollMs?: number;
  /**
   * Calls `onChange` at each event the run commits (from any instance), until
   * the returned function is called: a long poll then answers at once, not at
   * its next read. Without it, long polls read every `pollMs`.
   */
  watchRun?(runId: string, onChange: () => void): Promise<() => void>;
  now?(): number;
}

export function createAgentProtocol(options: AgentProtocolOptions) {
  const { host, mailbox } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 200;

  // A run's scenario never changes: decoded once per run (of the most recent ones), not at every request.
  const scenarios = new Map<string, Scenario | null>();
  function scenarioOf(run: RunRecord): Scenario | null {
    if (!scenarios.has(run.id)) rememberRecent(scenarios, run.id, safeScenario(run));
    return scenarios.get(run.id) ?? null;
  }

  /** The run, if it is an agent's run opened by this token; a 404 otherwise (another's run is not said to exist). */
  async function requireOwnRun(runId: string, agent: Pick<AgentIdentity, "tokenId">) {
    const run = await host.getRun(runId);
    const scenario = run ? scenarioOf(run) : null;
    if (!run || scenario?.model.kind !== "agent" || scenario.model.openedBy.tokenId !== agent.tokenId) {
      throw new AgentProtocolError("not_found", `No run ${runId} of this agent.`);
    }
    return { run, scenario };
  }

  /**
   * The scenario of an agent's own run, without reading the run when this
   * process already knows it: who opened a run and its scenario never change.
   * For a report, whose release token is read anyway (a run that is gone has
   * no releases, so its report is still a 404).
   */
  async function requireOwnScenario(runId: string, agent: Pick<AgentIdentity, "tokenId">) {
    const known = scenarios.get(runId);
    if (known?.model.kind === "agent" && known.model.openedBy.tokenId === agent.tokenId) return known;
    return (await requireOwnRun(runId, agent)).scenario;
  }

  async function openRun(input: OpenAgentRunInput, agent: AgentIdentity): Promise<{ runId: string }> {
    const scenario = parseScenarioValue({
      name: input.name,
      ...(input.limits ? { limits: input.limits } : {}),
      ...(input.workspace ? { workspace: input.workspace } : {}),
      ...(input.approvals ? { approvals: input.approvals } : {}),
      tools: input.tools,
      model: {
        kind: "agent",
        agent: input.agent,
        openedBy: agent,
        ...(input.releaseLeaseSeconds !== undefined
          ? { releaseLeaseSeconds: input.releaseLeaseSeconds }
          : {}),
      },
      ...(input.approvalTimeoutSeconds !== undefined
        ? { approvalTimeoutSeconds: input.approvalTimeoutSeconds }
        : {}),
      ...(input.mcpServers ? { mcpServers: input.mcpServers } : {}),
      ...(input.policy ? { policy: input.policy } : {}),
    });
    const { runId, settled } = await host.startAgentRun(scenario, {
      id: agent.ownerId,
      name: `${input.agent.name} (agent, token ${agent.tokenName} of ${agent.ownerName})`,
    });
    settled.catch(() => {});
    return { runId };
  }

  /** Where the run stands for its agent, now, with the answer's version. */
  async function readNow(runId: string, run: RunRecord, scenario: Scenario): Promise<AgentNext> {
    const answer = await readAnswer(runId, run, scenario);
    return { ...answer, version: versionOf(answer) };
  }

  async function readAnswer(
    runId: string,
    run: RunRecord,
    scenario: Scenario,
  ): Promise<Omit<AgentNext, "version">> {
    // The releases first, then the view: a call is released only after its wave's start is stored,
    // so a view read after the releases shows every wave a release belongs to, and one still
    // releasing is seen as such. Read the other way round, a wave that started between the two
    // reads was answered with the release or two made so far, not the whole wave.
    const releases = await mailbox.listReleases(runId);
    const view = await host.loadView(runId);
    if (!view) throw new AgentProtocolError("not_found", `No run ${runId} of this agent.`);
    const agentTools = new Set(scenario.tools.map((tool) => tool.name));
    const last = view.steps.at(-1);
    const base = {
      runId,
      status: view.status,
      waitingFor: null,
      releases: [],
      plan: null,
      outcome: null,
      error: null,
    } satisfies Partial<AgentNext>;
    if (FINAL_STATUSES.has(view.status) || FINAL_STATUSES.has(run.status)) {
      return {
        ...base,
        status: FINAL_STATUSES.has(view.status) ? view.status : run.status,
        next: "finished",
        turn: Math.max(0, view.steps.length - 1),
        outcome: last ? outcomeOf(last, view, agentTools) : null,
        error: view.error,
      };
    }
    if (!last || last.isFinished) {
      const expected = view.steps.length;
      const submitted = await mailbox.readTurn(runId, expected);
      // A lone successful finish ends the run: its end is on its way, not another turn.
      const isEnding =
        last?.calls.length === 1 && last.calls[0]?.name === "finish" && last.calls[0].status === "ok";
      // A cancel of the run settles its step first and ends the run right after: that end is on its way too.
      if (submitted || isEnding || last?.endsRun) {
        return { ...base, next: "wait", turn: expected, waitingFor: "server" };
      }
      return {
        ...base,
        next: "submit_turn",
        turn: expected,
        outcome: last ? outcomeOf(last, view, agentTools) : null,
      };
    }
    const ofStep = releases.filter((release) => release.stepIndex === last.index);
    const open = ofStep.filter((release) => release.state === "released");
    // A wave's calls are released together: answered once each started call of the agent's has its release.
    const isReleasing = last.calls.some(
      (call) =>
        call.status === "running" &&
        agentTools.has(call.name) &&
        !ofStep.some((release) => release.batchIndex === call.batchIndex),
    );
    if (open.length > 0 && !isReleasing) {
      return {
        ...base,
        next: "execute",
        turn: last.index,
        plan: last.plan,
        releases: open.map((release) => releaseView(release, last)),
      };
    }
    return {
      ...base,
      next: "wait",
      turn: last.index,
      plan: last.plan,
      waitingFor: view.pending ? "approval" : "server",
    };
  }

  /**
   * Answers what the agent may do now; when that is only `wait`, waits for a
   * change up to `waitMs` first (a long poll). With `after` (the version of
   * the last answer the agent acted on), waits instead until the answer is
   * another one: any change, the wait for a person included. Any process may
   * ask: the answer is read from what is stored.
   */
  async function next(
    runId: string,
    agent: Pick<AgentIdentity, "tokenId">,
    wait: {
      waitMs: number;
      signal?: AbortSignal;
      untilApproval?: boolean;
      after?: string | undefined;
      untilFinished?: boolean;
    },
  ): Promise<AgentNext> {
    const { scenario } = await requireOwnRun(runId, agent);
    // A wait is measured on the wall clock, whatever clock leases are read by.
    const deadline = Date.now() + wait.waitMs;
    let changed = new AbortController();
    const stopWatching =
      wait.waitMs > 0 && options.watchRun
        ? await options.watchRun(runId, () => changed.abort()).catch(() => async () => {})
        : () => {};
    try {
      for (;;) {
        const run = await host.getRun(runId);
        if (!run) throw new AgentProtocolError("not_found", `No run ${runId} of this agent.`);
        const answer = await readNow(runId, run, scenario);
        const left = deadline - Date.now();
        const isSettled = wait.untilFinished
          ? answer.next === "finished"
          : wait.after !== undefined
            ? answer.version !== wait.after
            : answer.next !== "wait" || (wait.untilApproval === true && answer.waitingFor === "approval");
        if (isSettled || left <= 0 || wait.signal?.aborted) return answer;
        const woken = changed.signal.aborted;
        changed = new AbortController();
        if (!woken) {
          const signals = wait.signal ? [wait.signal, changed.signal] : [changed.signal];
          await mailbox.waitForChange(runId, Math.min(pollMs, left), AbortSignal.any(signals));
        }
      }
    } finally {
      await stopWatching();
    }
  }

  /**
   * Accepts turn `input.turn` (the one the run waits for) after planning it
   * as the run would: a batch the planner sends back is refused whole with
   * its problems (`turn_refused`), nothing stored. The same turn sent again
   * answers as the first did; a different one under the same number is a
   * conflict. Answers with {@link next}, waiting up to `waitMs` for the plan.
   */
  async function submitTurn(
    runId: string,
    agent: Pick<AgentIdentity, "tokenId">,
    input: AgentTurnInput,
    wait: { waitMs: number; signal?: AbortSignal },
  ): Promise<AgentNext> {
    const { run, scenario } = await requireOwnRun(runId, agent);
    const digest = digestTurn(input);
    /** A turn already stored under this number: the same one sent again answers as the first did. */
    const answerResent = (stored: AgentTurnRecord): Promise<AgentNext> => {
      if (stored.digest !== digest) {
        throw new AgentProtocolError(
          "turn_conflict",
          `Turn ${input.turn} was already submitted with other content.`,
          { turn: input.turn },
        );
      }
      return next(runId, agent, { ...wait, untilApproval: true });
    };
    const existing = await mailbox.readTurn(runId, input.turn);
    if (existing) return answerResent(existing);
    const now0 = await readNow(runId, run, scenario);
    if (now0.next !== "submit_turn" || now0.turn !== input.turn) {
      // The same turn sent at once by another request may have been stored after it was looked
      // for above, moving the run on: it is a resend, not a turn out of order.
      const storedMeanwhile = await mailbox.readTurn(runId, input.turn);
      if (storedMeanwhile) return answerResent(storedMeanwhile);
      if (now0.next === "finished")
        throw new AgentProtocolError("not_waiting", `Run ${runId} has ended (${now0.status}).`);
      throw new AgentProtocolError(
        "turn_out_of_order",
        now0.next === "submit_turn"
          ? `The run waits for turn ${now0.turn}, not ${input.turn}.`
          : `Turn ${now0.turn} is still in progress: report its calls and wait for its outcome first.`,
        { expectedTurn: now0.next === "submit_turn" ? now0.turn : null, next: now0.next },
      );
    }
    refuseDuplicateIds(input);
    if (input.calls.length === 0) {
      throw new AgentProtocolError(
        "turn_refused",
        "The turn has no tool calls: send calls, or end the run at /finish with the final text.",
        { problems: [{ batchIndex: null, code: "no_tool_calls", message: "The turn has no tool calls." }] },
      );
    }
    const planned = await host.planTurn(runId, input.calls, input.turn);
    // Stricter than a run's own model: a turn with any problem is refused whole, so nothing is half-applied.
    if (planned && (planned.plan.kind === "repair" || planned.plan.problems.length > 0)) {
      throw new AgentProtocolError("turn_refused", formatRepairNotice(planned.plan.problems), {
        problems: planned.plan.problems satisfies PlanProblem[],
      });
    }
    const stored = await mailbox.storeTurn({
      runId,
      turn: input.turn,
      digest,
      text: input.text,
      calls: input.calls,
      usage: input.usage ?? null,
    });
    // Another request may have stored this turn number while this one was being planned.
    if (!stored.stored) return answerResent(stored.existing);
    // The answer comes once the turn is planned: what may run now, or the wait for a person.
    return next(runId, agent, { ...wait, untilApproval: true });
  }

  /**
   * Settles a released call with the agent's report, fenced by its release
   * token. The same report again answers the same; another report for a
   * reported call is a conflict; a release that lapsed or was cancelled (or
   * a token of another run) is refused, saying why. A report renews the
   * leases of the run's other open releases (see {@link renewUnlessFresh}).
   */
  async function report(runId: string, agent: Pick<AgentIdentity, "tokenId">, input: AgentReportInput) {
    const scenario = await requireOwnScenario(runId, agent);
    const release = await mailbox.readRelease(input.releaseToken);
    if (!release || release.runId !== runId) {
      throw new AgentProtocolError(
        "not_found",
        "No such release of this run: report with a releaseToken it gave you.",
      );
    }
    const reported: AgentReport = input.ok
      ? { ok: true, result: input.result ?? null }
      : {
          ok: false,
          error: { ...(input.error.code ? { code: input.error.code } : {}), message: input.error.message },
        };
    const reportDigest = sha256Hex(canonicalJson(reported));
    const accepted = {
      runId,
      callId: release.callId,
      batchIndex: release.batchIndex,
      attempt: release.attempt,
      accepted: true,
    };
    if (release.state === "released") {
      if (await mailbox.closeRelease(release.token, { state: "reported", report: reported, reportDigest })) {
        await renewUnlessFresh(runId, scenario);
        return accepted;
      }
    }
    const current = (await mailbox.readRelease(release.token)) ?? release;
    if (current.state === "reported") {
      if (current.reportDigest === reportDigest) return accepted;
      throw new AgentProtocolError(
        "report_conflict",
        `Call ${release.callId} was already reported with another outcome.`,
        {
          callId: release.callId,
        },
      );
    }
    throw new AgentProtocolError(
      "release_closed",
      current.state === "lapsed"
        ? `The release of ${release.callId} lapsed before this report: ${
            release.name
          } was ${isIdempotentTool(scenario, release.name) ? "released again" : "settled as interrupted"}.`
        : `The release of ${release.callId} was cancelled: the run or its turn was cancelled.`,
      { callId: release.callId, reason: current.state === "lapsed" ? "lapsed" : "cancelled" },
    );
  }

  // When this process last renewed each run's leases (of the most recent runs).
  const renewedAt = new Map<string, number>();

  async function renew(runId: string, scenario: Scenario): Promise<string> {
    const at = now();
    const until = new Date(at + releaseLeaseMsOf(scenario)).toISOString();
    await mailbox.renewLeases(runId, until);
    rememberRecent(renewedAt, runId, at);
    return until;
  }

  /**
   * A report renews the run's other leases, but not at every report: a wave
   * of reports arriving together would each rewrite every open release. Once
   * per quarter lease is enough for every open release to keep at least
   * three quarters of its lease (a release made since has a fresh one).
   */
  async function renewUnlessFresh(runId: string, scenario: Scenario): Promise<void> {
    const last = renewedAt.get(runId);
    if (last !== undefined && now() - last < releaseLeaseMsOf(scenario) / 4) return;
    await renew(runId, scenario);
  }

  /**
   * Renews the leases of every open release of the run: the agent is alive
   * and still working. A run that has ended has no releases to renew, and
   * says so as a turn sent to it would.
   */
  async function heartbeat(runId: string, agent: Pick<AgentIdentity, "tokenId">) {
    const { run, scenario } = await requireOwnRun(runId, agent);
    if (FINAL_STATUSES.has(run.status))
      throw new AgentProtocolError("not_waiting", `Run ${runId} has ended (${run.status}).`);
    return { runId, leaseExpiresAt: await renew(runId, scenario) };
  }

  /**
   * The agent gives up its own run: cancelled like any run (its open releases closed, the calls
   * not yet run invalidated), answered once the run has ended, so that a heartbeat or a turn sent
   * after the answer is refused as on any run that has ended. A running run ends when its worker
   * takes the cancel, after the request is stored: answered at the request, the run was still
   * RUNNING for a moment, and a heartbeat then renewed leases of a run being cancelled. After
   * `waitMs` the answer is the status as it stands (RUNNING while a call the server runs has not
   * yet stopped); the run ends all the same.
   */
  async function cancel(
    runId: string,
    agent: Pick<AgentIdentity, "tokenId">,
    wait: { waitMs: number; signal?: AbortSignal },
  ): Promise<{ status: RunStatus }> {
    await requireOwnRun(runId, agent);
    const { settled } = await host.startCancelRun(runId, "run");
    settled.catch(() => {});
    const answer = await next(runId, agent, { ...wait, untilFinished: true });
    return { status: answer.status };
  }

  return { openRun, requireOwnRun, next, submitTurn, report, heartbeat, cancel };
}

export type AgentProtocol = ReturnType<typeof createAgentProtocol>;

/** Sets `key` as the newest entry of `map`, which keeps the 1,000 most recent runs' entries. */
function rememberRecent<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  const oldest = map.keys().next().value;
  if (map.size > 1_000 && oldest !== undefined) map.delete(oldest);
}

function releaseLeaseMsOf(scenario: Scenario): number {
  return scenario.model.kind === "agent" ? scenario.model.releaseLeaseSeconds * 1_000 : 60_000;
}

function isIdempotentTool(scenario: Scenario, name: string): boolean {
  return scenario.tools.find((tool) => tool.name === name)?.effect !== "NON_IDEMPOTENT_WRITE";
}

function safeScenario(run: RunRecord): Scenario | null {
  try {
    return decodeStoredScenario(run);
  } catch {
    return null;
  }
}
