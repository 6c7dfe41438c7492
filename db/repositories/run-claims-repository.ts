/** The store's claims and leases seam over drizzle: atomic claims, leases in the database's clock. */
import { and, asc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import {
  decodeLimits,
  decodeToolAllowances,
  RUN_EVENT_VERSIONS,
  type RunClaims,
  type RunRecord,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runs } from "../schema";
import { appendEvent, jsonParameter, RUN_EVENTS_CHANNEL, rowsOf } from "./append-event";
import { isExpired, leaseFromNow, parseJson, runWithLease, toRunRecord } from "./run-rows";

export function createRunClaimsRepository(db: Db): RunClaims {
  return {
    async claimWaitingRun(runId, claimToken, leaseMs, purpose) {
      // One statement: the claim (skipping a row another claim holds, so it never queues), and its
      // announcement with the claimed state's step and digest. A state too damaged to say them is
      // claimed unannounced: the claimer fails the run, which is announced.
      const readable = sql`jsonb_typeof(state->'stepIndex') = 'number' and jsonb_typeof(state->'pending'->'turnDigest') = 'string'`;
      const result = await db.execute(sql`
        with claimed as (
          update runs
          set status = 'RUNNING', claim_token = ${claimToken}, lease_expires_at = ${leaseFromNow(leaseMs)},
              updated_at = now(), last_seq = last_seq + (case when ${readable} then 1 else 0 end)
          where id = ${runId}::uuid and status = 'WAITING_FOR_APPROVAL'
            and id in (select id from runs where id = ${runId}::uuid for update skip locked)
          returning id, status, scenario, limits, model_calls, state, started_by_id, last_seq, allowed_tools,
                    xmin::text as version
        ), announced as (
          insert into run_events (run_id, seq, type, version, payload)
          select id, last_seq, 'run_claimed', ${RUN_EVENT_VERSIONS.run_claimed},
                 jsonb_build_object('stepIndex', state->'stepIndex', 'turnDigest', state->'pending'->'turnDigest',
                                    'purpose', ${purpose}::text)
          from claimed where ${readable}
          returning run_id, seq
        )
        select claimed.*,
               (select pg_notify(${RUN_EVENTS_CHANNEL}, run_id::text || ':' || seq::text) from announced) as notified
        from claimed`);
      const [row] = rowsOf<{
        id: string;
        status: RunRecord["status"];
        scenario: unknown;
        limits: unknown;
        model_calls: number;
        state: unknown;
        started_by_id: string | null;
        allowed_tools: unknown;
        version: string;
      }>(result);
      if (!row) return null;
      return {
        id: row.id,
        status: row.status,
        scenario: parseJson(row.scenario),
        limits: decodeLimits(row.id, parseJson(row.limits)),
        modelCalls: Number(row.model_calls),
        state: parseJson(row.state),
        startedById: row.started_by_id,
        leaseExpired: false,
        allowedTools: decodeToolAllowances(parseJson(row.allowed_tools)),
        version: row.version,
      };
    },

    async releaseRun(runId, claimToken, state, event) {
      try {
        await appendEvent(db, runId, event, {
          fence: claimToken,
          // waitingSince stays: a refused decision does not restart the wait.
          alsoSet: sql`status = 'WAITING_FOR_APPROVAL', state = ${jsonParameter(state)}::jsonb,
            claim_token = null, lease_expires_at = null`,
        });
        return true;
      } catch {
        return false;
      }
    },

    async renewLease(runId, claimToken, leaseMs) {
      const rows = await db
        .update(runs)
        .set({ leaseExpiresAt: leaseFromNow(leaseMs) })
        .where(and(eq(runs.id, runId), eq(runs.claimToken, claimToken), eq(runs.status, "RUNNING")))
        .returning({ id: runs.id });
      return rows.length > 0;
    },

    async claimExpiredRuns({ leaseMs, limit, runId }) {
      const expired = db
        .select({ id: runs.id })
        .from(runs)
        .where(runId === undefined ? isExpired : and(isExpired, eq(runs.id, runId)))
        .orderBy(asc(runs.leaseExpiresAt))
        .limit(limit)
        .for("update", { skipLocked: true });
      const rows = await db
        .update(runs)
        .set({
          claimToken: sql`gen_random_uuid()::text`,
          leaseExpiresAt: leaseFromNow(leaseMs),
          updatedAt: new Date(),
        })
        .where(and(inArray(runs.id, expired), isExpired))
        .returning({ ...getTableColumns(runs), version: runWithLease.version });
      return rows.map((row) => ({
        run: toRunRecord({ ...row, leaseExpired: false }),
        claimToken: row.claimToken ?? "",
      }));
    },
  };
}
