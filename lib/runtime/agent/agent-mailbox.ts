/**
 * The mailbox between an agent that runs outside the playground and the
 * worker that drives its run (docs/agent-api.md). The agent leaves its turns
 * here; the worker's agent model reads them as completions. The worker leaves
 * releases here (a call the agent may execute now, bound to a token and an
 * attempt); the agent's report settles a release, and the worker's agent
 * tool reads it as the call's outcome.
 *
 * Every state change of a release is one conditional write on its token, so
 * a report, a lapse and a cancel can race and exactly one wins.
 */
import type { ModelToolCall, ModelUsage } from "../model/model";

/** One turn as the agent submitted it: its model's text and tool calls exactly as emitted. */
export interface AgentTurnRecord {
  runId: string;
  /** The completion it answers (0 for the first). */
  turn: number;
  /** sha256 of what the model said (text and calls as sent): a resubmission must match it. */
  digest: string;
  text: string | null;
  calls: ModelToolCall[];
  usage: ModelUsage | null;
}

/** What an agent reports of a call it executed. */
export type AgentReport =
  | { ok: true; result: unknown }
  | { ok: false; error: { code?: string | undefined; message: string } };

export const RELEASE_STATES = ["released", "reported", "lapsed", "cancelled"] as const;
export type ReleaseState = (typeof RELEASE_STATES)[number];

/** One release of one call to the agent: an attempt at it, with its token and lease. */
export interface AgentRelease {
  runId: string;
  stepIndex: number;
  batchIndex: number;
  /** 1 for the first release of the call; a lapsed idempotent call is released again with the next. */
  attempt: number;
  token: string;
  callId: string;
  name: string;
  /** The arguments to execute with: the model's raw text, or an approver's edit (canonical JSON). */
  arguments: string;
  state: ReleaseState;
  /** ISO time after which, unreported, the release lapses. */
  leaseExpiresAt: string;
  report: AgentReport | null;
  /** sha256 of the report's canonical JSON: the same report again is recognised by it. */
  reportDigest: string | null;
}

export type NewAgentRelease = Omit<AgentRelease, "state" | "report" | "reportDigest">;

/**
 * The mailbox's persistence port. The memory twin (`lib/runtime/testing`) and
 * the database (`db/repositories/agent-mailbox.ts`) pass the same contract
 * suite (`agent-protocol.contract.ts`).
 */
export interface AgentMailbox {
  /** Stores a turn; when turn `turn` of the run is already stored, returns that one and stores nothing. */
  storeTurn(turn: AgentTurnRecord): Promise<{ stored: true } | { stored: false; existing: AgentTurnRecord }>;
  readTurn(runId: string, turn: number): Promise<AgentTurnRecord | null>;
  /** How many turns the run's agent has submitted. */
  countTurns(runId: string): Promise<number>;
  /** The run's releases (of one call, when `call` is given), oldest first. */
  listReleases(runId: string, call?: { stepIndex: number; batchIndex: number }): Promise<AgentRelease[]>;
  /** Stores a release; false (nothing stored) when that attempt of that call is already released. */
  createRelease(release: NewAgentRelease): Promise<boolean>;
  readRelease(token: string): Promise<AgentRelease | null>;
  /**
   * Moves a release out of `released`, in one conditional write: to
   * `reported` with its report, or `lapsed` (only when its lease ended at or
   * before `lapsedBy`), or `cancelled`. False, with nothing written, when the
   * release is not `released` (any more) or its lease has not ended.
   */
  closeRelease(
    token: string,
    close:
      | { state: "reported"; report: AgentReport; reportDigest: string }
      | { state: "lapsed"; lapsedBy: string }
      | { state: "cancelled" },
  ): Promise<boolean>;
  /** Extends the leases of the run's open releases to at least `until` (ISO); returns how many. */
  renewLeases(runId: string, until: string): Promise<number>;
  /**
   * Resolves when something of the run's mailbox changed in this process, or
   * after `timeoutMs` (changes made by other instances are seen by reading
   * again), or at once when `signal` aborts.
   */
  waitForChange(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves when the release with this token left `released` in this
   * process, or after `timeoutMs`, or at once when `signal` aborts. A worker
   * waiting on one call's report waits here, not on the whole run: a report
   * wakes its own waiter only, where a run-wide wake made each of a wave's
   * reports wake every call of the wave to read its release again.
   */
  waitForRelease(token: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Wakes the waiters of a run, or of one release, in this process: what a
 * mailbox uses for `waitForChange` and `waitForRelease`. Changes made
 * elsewhere are found by the timeout's re-read.
 */
export function createMailboxWakeups() {
  const waiting = new Map<string, Set<() => void>>();
  const wakeKey = (key: string) => {
    const waiters = waiting.get(key);
    if (!waiters) return;
    waiting.delete(key);
    for (const resolve of waiters) resolve();
  };
  const waitOn = (key: string, timeoutMs: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      let waiters = waiting.get(key);
      if (!waiters) {
        waiters = new Set();
        waiting.set(key, waiters);
      }
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const left = waiting.get(key);
        left?.delete(done);
        if (left?.size === 0) waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      (timer as { unref?: () => void }).unref?.();
      signal?.addEventListener("abort", done, { once: true });
      waiters.add(done);
    });
  return {
    /** Something of the run changed (a turn stored, a release made or closed). */
    wakeRun: (runId: string) => wakeKey(`run ${runId}`),
    /** A release left `released`: its own waiter and the run's. */
    wakeRelease: (runId: string, token: string) => {
      wakeKey(`release ${token}`);
      wakeKey(`run ${runId}`);
    },
    waitForRun: (runId: string, timeoutMs: number, signal?: AbortSignal) =>
      waitOn(`run ${runId}`, timeoutMs, signal),
    waitForRelease: (token: string, timeoutMs: number, signal?: AbortSignal) =>
      waitOn(`release ${token}`, timeoutMs, signal),
  };
}
