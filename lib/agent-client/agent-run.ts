/**
 * One agent run, driven over the agent API (docs/agent-api.md): a turn is
 * submitted, its released calls are executed as the server releases them (a
 * wave's calls together, never more than the cap), their outcomes reported,
 * and the turn's outcome returned once the server has it. Waiting is a long
 * poll on `/next?after=<version>`, answered at the run's next change.
 */
import { AgentClientError, cancelledError, isAgentClientError } from "./agent-client-error";
import type {
  AgentNext,
  ReleasedCall,
  ReleaseView,
  RunTurnOptions,
  ToolCallInput,
  ToolExecutor,
  TurnOutcome,
} from "./agent-client-types";
import type { AgentHttp } from "./agent-http";
import { errorReport } from "./error-report";
import { LeaseKeeper } from "./lease-keeper";

/** How long one long poll may wait on the server (it answers at the next change, at most this). */
const POLL_WAIT_SECONDS = 25;

export class AgentRun {
  readonly id: string;
  #last: AgentNext;
  readonly #http: AgentHttp;
  readonly #leaseMs: number | null;

  constructor(http: AgentHttp, state: AgentNext, options: { leaseSeconds?: number | undefined } = {}) {
    this.#http = http;
    this.id = state.runId;
    this.#last = state;
    this.#leaseMs = options.leaseSeconds === undefined ? null : options.leaseSeconds * 1_000;
  }

  /** The server's last answer: what the agent may do now. */
  get state(): AgentNext {
    return this.#last;
  }

  /** Reads where the run stands, without waiting. */
  async refresh(signal?: AbortSignal): Promise<AgentNext> {
    return this.#keep(await this.#http.request<AgentNext>("GET", `/${this.#path()}`, { signal }));
  }

  /**
   * Submits the model's calls as the turn the run waits for, executes what
   * the server releases through `execute`, and answers the turn's outcome in
   * the model's call order. Sent again after a restart with the same calls,
   * it picks the turn up where it stands (the server answers a repeated turn
   * as the first time).
   */
  async runTurn(calls: readonly ToolCallInput[], options: RunTurnOptions): Promise<TurnOutcome> {
    // The turn just finished, sent again (a framework replaying from its checkpoint): its outcome, not a new turn.
    const last = this.#last.outcome;
    if (
      this.#last.next === "submit_turn" &&
      last &&
      last.calls.length === calls.length &&
      last.calls.every((call, index) => call.callId === calls[index]?.id && call.name === calls[index]?.name)
    ) {
      return last;
    }
    const turn = this.#turnToSubmit();
    const submitted = await this.#http.request<AgentNext>("POST", `/${this.#path()}/turns?wait=10`, {
      body: {
        turn,
        text: options.text ?? null,
        calls: calls.map((call) => ({
          id: call.id,
          name: call.name,
          arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
        })),
        ...(options.usage ? { usage: options.usage } : {}),
      },
      signal: options.signal,
    });
    this.#keep(submitted);
    return this.#drive(turn, options.execute, options.signal);
  }

  /**
   * Drives the turn in progress to its outcome without submitting it: after
   * a restart ({@link AgentClient.resumeRun}), the open releases are
   * executed and the outcome awaited. Answers the last outcome when the run
   * already waits for the next turn.
   */
  async continueTurn(options: Omit<RunTurnOptions, "text" | "usage">): Promise<TurnOutcome | null> {
    const state = this.#last;
    if (state.next === "submit_turn" || state.next === "finished") return state.outcome;
    return this.#drive(state.turn, options.execute, options.signal);
  }

  /**
   * Ends the run with the model's final text (the server runs a lone
   * `finish`) and answers once it has ended.
   */
  async finish(text: string, options: { signal?: AbortSignal } = {}): Promise<AgentNext> {
    const turn = this.#turnToSubmit();
    let state = this.#keep(
      await this.#http.request<AgentNext>("POST", `/${this.#path()}/finish?wait=10`, {
        body: { turn, text },
        signal: options.signal,
      }),
    );
    while (state.next !== "finished") state = await this.#poll(state.version, options.signal);
    return state;
  }

  /** Cancels the run like any run: open releases close, the next report is refused. */
  async cancel(signal?: AbortSignal): Promise<void> {
    await this.#http.request("POST", `/${this.#path()}/cancel`, { body: {}, signal });
  }

  /** Renews the leases of the run's open releases. */
  async heartbeat(signal?: AbortSignal): Promise<{ leaseExpiresAt: string }> {
    return this.#http.request("POST", `/${this.#path()}/heartbeat`, { body: {}, signal });
  }

  /**
   * Reports a released call's outcome. Throws `lapsed` when its lease lapsed
   * first, `cancelled` when the run or turn was cancelled.
   */
  async report(
    release: Pick<ReleaseView, "releaseToken">,
    outcome: { ok: true; result: unknown } | { ok: false; error: { code?: string; message: string } },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#http.request("POST", `/${this.#path()}/reports`, {
      body: { releaseToken: release.releaseToken, ...outcome },
      signal,
    });
  }

  async #drive(turn: number, execute: ToolExecutor, signal: AbortSignal | undefined): Promise<TurnOutcome> {
    // Aborted when the turn ends, however it ends: executions still running are told to stop.
    const local = new AbortController();
    const stop = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    const started = new Set<string>();
    let fatal: unknown = null;
    // Woken when an execution fails in a way the loop must see (the server unreachable): the poll stops.
    let wake = new AbortController();
    const keeper = new LeaseKeeper(
      () => this.heartbeat(stop),
      () => this.#heartbeatMs(),
    );
    try {
      for (let state = this.#last; ; ) {
        if (fatal) throw fatal;
        if (signal?.aborted) throw cancelledError(signal.reason);
        if (state.next === "finished") return outcomeOfFinished(state, turn);
        if (state.next === "submit_turn") {
          // Every call of the turn is settled; an execution still running (its turn was cancelled) is told to stop.
          if (state.outcome?.turn === turn) return state.outcome;
          throw new AgentClientError(
            "stale",
            `Turn ${turn} is not in progress: the run waits for turn ${state.turn}.`,
            { details: { expectedTurn: state.turn } },
          );
        }
        if (state.next === "execute") {
          for (const release of state.releases) {
            if (started.has(release.releaseToken)) continue;
            started.add(release.releaseToken);
            keeper.begin();
            this.#execute(release, execute, stop)
              .catch((error: unknown) => {
                if (stop.aborted) return;
                fatal = error;
                wake.abort();
              })
              .finally(() => keeper.end());
          }
        }
        try {
          state = await this.#poll(state.version, AbortSignal.any([stop, wake.signal]));
        } catch (error) {
          if (!wake.signal.aborted || signal?.aborted) throw error;
          wake = new AbortController();
        }
      }
    } finally {
      keeper.stop();
      local.abort(new AgentClientError("cancelled", "The turn ended."));
    }
  }

  /** Executes one release and reports it; a lapsed or cancelled release is left to the server's next answer. */
  async #execute(release: ReleaseView, execute: ToolExecutor, signal: AbortSignal): Promise<void> {
    const call: ReleasedCall = {
      callId: release.callId,
      name: release.name,
      input: parseArguments(release.arguments),
      rawArguments: release.arguments,
      edited: release.edited,
      attempt: release.attempt,
      batchIndex: release.batchIndex,
    };
    let outcome: { ok: true; result: unknown } | { ok: false; error: { code?: string; message: string } };
    try {
      const result = await execute(call, { signal });
      outcome = { ok: true, result: result === undefined ? null : result };
    } catch (error) {
      if (signal.aborted) return;
      outcome = { ok: false, error: errorReport(error) };
    }
    try {
      await this.report(release, outcome, signal);
    } catch (error) {
      // The server already settled it (released again, interrupted, or cancelled): its next answer says so.
      if (isAgentClientError(error, "lapsed") || isAgentClientError(error, "cancelled")) return;
      throw error;
    }
  }

  /** One long poll: answered at the next change of what the agent acts on, or after {@link POLL_WAIT_SECONDS}. */
  async #poll(after: string, signal: AbortSignal | undefined): Promise<AgentNext> {
    const query = `wait=${POLL_WAIT_SECONDS}&after=${encodeURIComponent(after)}`;
    return this.#keep(
      await this.#http.request<AgentNext>("GET", `/${this.#path()}/next?${query}`, { signal }),
    );
  }

  #heartbeatMs(): number {
    const leaseMs =
      this.#leaseMs ??
      Math.min(
        ...this.#last.releases.map((release) => Date.parse(release.leaseExpiresAt) - Date.now()),
        60_000,
      );
    return Math.max(20, Math.floor(leaseMs / 3));
  }

  #turnToSubmit(): number {
    const state = this.#last;
    if (state.next === "finished") {
      throw new AgentClientError("stale", `Run ${this.id} has ended (${state.status}).`, {
        details: { status: state.status },
      });
    }
    // Mid-turn (a restart): the turn in progress, which the server answers as it did if sent unchanged.
    return state.turn;
  }

  #keep(state: AgentNext): AgentNext {
    this.#last = state;
    return state;
  }

  #path(): string {
    return encodeURIComponent(this.id);
  }
}

function outcomeOfFinished(state: AgentNext, turn: number): TurnOutcome {
  if (state.status === "CANCELLED") {
    throw new AgentClientError("cancelled", `Run ${state.runId} was cancelled.`, {
      details: { status: state.status },
    });
  }
  if (state.status === "FAILED") {
    throw new AgentClientError(
      "failed",
      `Run ${state.runId} failed: ${state.error?.message ?? "no reason given"}`,
      {
        details: { status: state.status, error: state.error },
      },
    );
  }
  if (state.outcome?.turn === turn) return state.outcome;
  throw new AgentClientError("stale", `Run ${state.runId} has ended (${state.status}).`, {
    details: { status: state.status },
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
