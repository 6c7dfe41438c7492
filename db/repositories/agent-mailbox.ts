import { and, asc, count, eq, inArray, lte, sql } from "drizzle-orm";
import {
  type AgentMailbox,
  type AgentRelease,
  type AgentReport,
  type AgentTurnRecord,
  createMailboxWakeups,
  type ModelToolCall,
} from "@/lib/runtime";
import type { Db } from "../client";
import { agentReleases, agentTurns } from "../schema";

/**
 * The agents' mailbox in the database (docs/agent-api.md). Each change of a
 * release is one conditional update on its token, so a report, a lapse and a
 * cancel racing on any instances leave exactly one winner. Waiters in this
 * process are woken at once; other instances' changes are found when their
 * waits time out and read again.
 */
export function createAgentMailboxRepository(db: Db): AgentMailbox {
  const wakeups = createMailboxWakeups();
  return {
    async storeTurn(turn) {
      const inserted = await db
        .insert(agentTurns)
        .values({
          runId: turn.runId,
          turn: turn.turn,
          digest: turn.digest,
          text: turn.text,
          calls: turn.calls,
          usage: turn.usage,
        })
        .onConflictDoNothing()
        .returning({ turn: agentTurns.turn });
      if (inserted.length > 0) {
        wakeups.wakeRun(turn.runId);
        return { stored: true };
      }
      const existing = await this.readTurn(turn.runId, turn.turn);
      if (!existing) throw new Error(`turn ${turn.turn} of run ${turn.runId} neither stored nor found`);
      return { stored: false, existing };
    },
    async readTurn(runId, turn) {
      const [row] = await db
        .select()
        .from(agentTurns)
        .where(and(eq(agentTurns.runId, runId), eq(agentTurns.turn, turn)));
      return row ? toTurn(row) : null;
    },
    async countTurns(runId) {
      const [row] = await db.select({ turns: count() }).from(agentTurns).where(eq(agentTurns.runId, runId));
      return Number(row?.turns ?? 0);
    },
    async listReleases(runId, call) {
      const rows = await db
        .select()
        .from(agentReleases)
        .where(
          and(
            eq(agentReleases.runId, runId),
            call ? eq(agentReleases.stepIndex, call.stepIndex) : undefined,
            call ? eq(agentReleases.batchIndex, call.batchIndex) : undefined,
          ),
        )
        .orderBy(asc(agentReleases.stepIndex), asc(agentReleases.batchIndex), asc(agentReleases.attempt));
      return rows.map(toRelease);
    },
    async createRelease(release) {
      const inserted = await db
        .insert(agentReleases)
        .values({ ...release, state: "released", leaseExpiresAt: new Date(release.leaseExpiresAt) })
        .onConflictDoNothing()
        .returning({ token: agentReleases.token });
      if (inserted.length > 0) wakeups.wakeRun(release.runId);
      return inserted.length > 0;
    },
    async readRelease(token) {
      const [row] = await db.select().from(agentReleases).where(eq(agentReleases.token, token));
      return row ? toRelease(row) : null;
    },
    async closeRelease(token, close) {
      const closed = await db
        .update(agentReleases)
        .set({
          state: close.state,
          closedAt: sql`now()`,
          ...(close.state === "reported" ? { report: close.report, reportDigest: close.reportDigest } : {}),
        })
        .where(
          and(
            eq(agentReleases.token, token),
            eq(agentReleases.state, "released"),
            close.state === "lapsed"
              ? lte(agentReleases.leaseExpiresAt, new Date(close.lapsedBy))
              : undefined,
          ),
        )
        .returning({ runId: agentReleases.runId });
      const [row] = closed;
      if (row) wakeups.wakeRelease(row.runId, token);
      return row !== undefined;
    },
    async renewLeases(runId, until) {
      // A release another transaction holds is skipped, not waited for: it is being reported (closed)
      // or renewed already. Waiting made concurrent reports of one wide batch deadlock, each renewing
      // every release of the run while closing its own (npm run load found it: a 500 to the agent).
      const locked = db
        .select({ token: agentReleases.token })
        .from(agentReleases)
        .where(and(eq(agentReleases.runId, runId), eq(agentReleases.state, "released")))
        .for("update", { skipLocked: true });
      const renewed = await db
        .update(agentReleases)
        .set({ leaseExpiresAt: sql`greatest(${agentReleases.leaseExpiresAt}, ${until}::timestamptz)` })
        .where(and(inArray(agentReleases.token, locked), eq(agentReleases.state, "released")))
        .returning({ token: agentReleases.token });
      return renewed.length;
    },
    waitForChange: wakeups.waitForRun,
    waitForRelease: wakeups.waitForRelease,
  };
}

function toTurn(row: typeof agentTurns.$inferSelect): AgentTurnRecord {
  return {
    runId: row.runId,
    turn: row.turn,
    digest: row.digest,
    text: row.text,
    calls: row.calls as ModelToolCall[],
    usage: (row.usage ?? null) as AgentTurnRecord["usage"],
  };
}

function toRelease(row: typeof agentReleases.$inferSelect): AgentRelease {
  return {
    runId: row.runId,
    stepIndex: row.stepIndex,
    batchIndex: row.batchIndex,
    attempt: row.attempt,
    token: row.token,
    callId: row.callId,
    name: row.name,
    arguments: row.arguments,
    state: row.state,
    leaseExpiresAt: row.leaseExpiresAt.toISOString(),
    report: (row.report ?? null) as AgentReport | null,
    reportDigest: row.reportDigest,
  };
}
