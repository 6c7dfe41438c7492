/**
 * The escalation steps that fired, for the audit (docs/notifications.md#escalation): read, never
 * written here. Each fired step is a `notification_escalations` row (when it fired) and the run's
 * `approval_escalated` event (the chain's length and the group it told, as configured then).
 */
import { sql } from "drizzle-orm";
import { decodeRunEvent } from "@/lib/runtime/events/run-events";
import type { Db } from "../client";
import { rowsOf } from "./append-event";
import { parseJson } from "./run-rows";
import { containing, idPrefixPattern } from "./text-match";

export interface FiredEscalation {
  id: number;
  firedAt: Date;
  runId: string;
  runName: string;
  turnDigest: string;
  channel: string;
  /** 1 for the chain's first step, of `steps`. */
  step: number;
  steps: number;
  afterMinutes: number;
  /** The group the step told, as the channel configured it. */
  to: { users: string[]; roles: string[] };
}

/**
 * The fired steps, newest first, at most `limit`; `run` narrows them as the audit's filter does:
 * part of the run's name, or the start of its id.
 */
export async function listFiredEscalations(
  db: Db,
  options: { limit: number; run?: string },
): Promise<FiredEscalation[]> {
  const idPattern = options.run ? idPrefixPattern(options.run) : undefined;
  const rows = rowsOf<{
    id: string | number;
    settled_at: string | Date;
    run_id: string;
    name: string;
    turn_digest: string;
    channel: string;
    step: number;
    seq: number;
    version: number;
    created_at: string | Date;
    payload: unknown;
  }>(
    await db.execute(sql`
      select ne.id, ne.settled_at, ne.run_id, r.name, ne.turn_digest, ne.channel, ne.step, e.seq, e.version, e.created_at, e.payload
      from notification_escalations ne
      join runs r on r.id = ne.run_id
      join lateral (
        select seq, version, created_at, payload from run_events
        where run_id = ne.run_id and type = 'approval_escalated'
          and payload->>'turnDigest' = ne.turn_digest and payload->>'channel' = ne.channel
          and (payload->>'step')::int = ne.step
        order by seq desc limit 1
      ) e on true
      where ne.status = 'fired'
      ${
        options.run
          ? sql`and (r.name ilike ${containing(options.run)} ${idPattern ? sql`or ne.run_id::text like ${idPattern}` : sql``})`
          : sql``
      }
      order by ne.settled_at desc, ne.id desc
      limit ${options.limit}`),
  );
  return rows.map((row) => {
    // Decoded as the run's own log is: a damaged event is an error, never guessed at.
    const event = decodeRunEvent(row.run_id, {
      seq: Number(row.seq),
      type: "approval_escalated",
      version: Number(row.version),
      payload: parseJson(row.payload),
      at: new Date(row.created_at).toISOString(),
    });
    if (event.type !== "approval_escalated") throw new Error("not an escalation event");
    const { payload } = event;
    return {
      id: Number(row.id),
      firedAt: new Date(row.settled_at),
      runId: row.run_id,
      runName: row.name,
      turnDigest: row.turn_digest,
      channel: row.channel,
      step: Number(row.step),
      steps: payload.steps,
      afterMinutes: payload.afterMinutes,
      to: payload.to,
    };
  });
}
