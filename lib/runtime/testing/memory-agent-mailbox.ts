import {
  type AgentMailbox,
  type AgentRelease,
  type AgentTurnRecord,
  createMailboxWakeups,
} from "../agent/agent-mailbox";

/** The agent mailbox in memory, for tests and headless runs; share one between hosts as instances share a database. */
export function createMemoryAgentMailbox(): AgentMailbox {
  const turns = new Map<string, AgentTurnRecord>();
  const releases = new Map<string, AgentRelease>();
  const wakeups = createMailboxWakeups();
  const turnKey = (runId: string, turn: number) => `${runId}#${turn}`;
  const copy = <T>(value: T): T => structuredClone(value);
  return {
    async storeTurn(turn) {
      const existing = turns.get(turnKey(turn.runId, turn.turn));
      if (existing) return { stored: false, existing: copy(existing) };
      turns.set(turnKey(turn.runId, turn.turn), copy(turn));
      wakeups.wakeRun(turn.runId);
      return { stored: true };
    },
    async readTurn(runId, turn) {
      const found = turns.get(turnKey(runId, turn));
      return found ? copy(found) : null;
    },
    async countTurns(runId) {
      return [...turns.values()].filter((turn) => turn.runId === runId).length;
    },
    async listReleases(runId, call) {
      return [...releases.values()]
        .filter(
          (release) =>
            release.runId === runId &&
            (!call || (release.stepIndex === call.stepIndex && release.batchIndex === call.batchIndex)),
        )
        .map(copy);
    },
    async createRelease(release) {
      const taken = [...releases.values()].some(
        (known) =>
          known.runId === release.runId &&
          known.stepIndex === release.stepIndex &&
          known.batchIndex === release.batchIndex &&
          known.attempt === release.attempt,
      );
      if (taken || releases.has(release.token)) return false;
      releases.set(release.token, { ...copy(release), state: "released", report: null, reportDigest: null });
      wakeups.wakeRun(release.runId);
      return true;
    },
    async readRelease(token) {
      const found = releases.get(token);
      return found ? copy(found) : null;
    },
    async closeRelease(token, close) {
      const release = releases.get(token);
      if (release?.state !== "released") return false;
      if (close.state === "lapsed" && Date.parse(release.leaseExpiresAt) > Date.parse(close.lapsedBy))
        return false;
      release.state = close.state;
      if (close.state === "reported") {
        release.report = copy(close.report);
        release.reportDigest = close.reportDigest;
      }
      wakeups.wakeRelease(release.runId, token);
      return true;
    },
    async renewLeases(runId, until) {
      let renewed = 0;
      for (const release of releases.values()) {
        if (release.runId !== runId || release.state !== "released") continue;
        if (Date.parse(release.leaseExpiresAt) < Date.parse(until)) release.leaseExpiresAt = until;
        renewed += 1;
      }
      return renewed;
    },
    waitForChange: wakeups.waitForRun,
    waitForRelease: wakeups.waitForRelease,
  };
}
