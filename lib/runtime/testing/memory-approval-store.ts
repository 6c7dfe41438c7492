/** The in-memory store's approvals seam: the audit's rows, grants, waits and a decision's one-write claim. */
import type { ApprovalStore } from "../run/run-store";
import { copy, type MemoryRunLog } from "./memory-run-log";

export function createMemoryApprovalStore(log: MemoryRunLog): ApprovalStore {
  const { runs, now } = log;
  const waiting = () => [...runs.values()].filter((run) => log.statusOf(run) === "WAITING_FOR_APPROVAL");
  return {
    async listApprovals(runId) {
      return copy(runs.get(runId)?.approvals ?? []);
    },

    async recordApproval(records, announce) {
      const runId = records[0]?.runId;
      const run = runId === undefined ? undefined : runs.get(runId);
      if (!run || runId === undefined) return false;
      const { claimToken, ...decision } = announce;
      const holder = log.held(runId, claimToken);
      if (!log.auditable(records)) return false;
      log.writeDecision(holder, { records, ...decision });
      return true;
    },

    async claimAndRecordDecision(runId, claimToken, leaseMs, unchangedSince, decision) {
      const run = runs.get(runId);
      if (
        !run ||
        log.statusOf(run) !== "WAITING_FOR_APPROVAL" ||
        log.recordOf(run).version !== unchangedSince
      )
        return false;
      if (!log.auditable(decision.records)) return false;
      log.claim(run, claimToken, leaseMs, "decision");
      log.writeDecision(run, decision);
      return true;
    },

    async recordPartialApproval(runId, unchangedSince, { records, event, state, awaiting }) {
      const run = runs.get(runId);
      if (
        !run ||
        log.statusOf(run) !== "WAITING_FOR_APPROVAL" ||
        log.recordOf(run).version !== unchangedSince ||
        (run.expiresAt !== null && run.expiresAt <= now())
      )
        return false;
      if (!log.auditable(records)) return false;
      run.state = copy(state);
      log.writeDecision(run, { records, event });
      if (awaiting) log.append(run, awaiting);
      return true;
    },

    async revokeToolAllowance(runId, toolName, by) {
      const run = runs.get(runId);
      if (!run || !Object.hasOwn(run.view.allowedTools, toolName)) return false;
      log.append(run, { type: "tool_allowance_revoked", payload: { toolName, ...by } });
      return true;
    },

    async announceExpiringWaits(limit) {
      const due = waiting()
        .filter((run) => run.warnAt !== null && run.warnAt <= now())
        .slice(0, limit);
      for (const run of due) {
        run.warnAt = null;
        const state = run.state as { stepIndex: number; pending: { turnDigest: string } };
        log.append(run, {
          type: "approval_expiring",
          payload: {
            stepIndex: state.stepIndex,
            turnDigest: state.pending.turnDigest,
            expiresAt: new Date(run.expiresAt ?? now()).toISOString(),
          },
        });
      }
      return due.length;
    },

    async listExpiredWaits(limit) {
      return waiting()
        .filter((run) => run.expiresAt !== null && run.expiresAt <= now())
        .sort((a, b) => (a.expiresAt ?? 0) - (b.expiresAt ?? 0))
        .slice(0, limit)
        .map((run) => run.id);
    },
  };
}
