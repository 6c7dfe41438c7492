/**
 * The notification outbox over drizzle (docs/notifications.md#how-delivery-works): run events noted
 * by the database's trigger are expanded once into outbox lines, and the lines are claimed for
 * sending with `for update skip locked`, so however many instances sweep, each line is sent by one.
 */
import { sql } from "drizzle-orm";
import type { PolicyDecision } from "@/lib/runtime";
import { decodeRunEvent, type RunEventPayload, type StoredRunEvent } from "@/lib/runtime/events/run-events";
import type { Db } from "../client";
import { appendEvent, jsonParameter, rowsOf, type Transaction } from "./append-event";
import { type DecisionLinkRecord, insertDecisionLinks } from "./decision-links";
import { parseJson } from "./run-rows";

/** A noted event with what a message about it needs of its run. */
export interface NotedEvent {
  id: number;
  runId: string;
  runName: string;
  scenario: unknown;
  event: StoredRunEvent;
  /** The channels and recipients already told that this run waits (a wait's end goes to them). */
  toldOfWait: Array<{ channel: string; recipient: string }>;
  /** For `approval_escalated`: the waiting item its step scheduled (null if there is none). */
  escalationItem?: unknown;
  /**
   * For `awaiting_approval` and `approval_escalated`: what the policy decided for the turn's barrier,
   * the call a decision link decides (undefined when no policy was published, or the turn is unknown).
   */
  barrierPolicy?: PolicyDecision;
}

/**
 * What the policy decided for the barrier of the turn `turnDigest` waited at: the first gate of its
 * `awaiting_approval`, as its step's `step_planned` recorded the call.
 */
async function readBarrierPolicy(
  tx: Transaction,
  runId: string,
  turnDigest: string,
): Promise<PolicyDecision | undefined> {
  const [waited] = rowsOf<{ payload: unknown }>(
    await tx.execute(sql`
      select payload from run_events
      where run_id = ${runId}::uuid and type = 'awaiting_approval' and payload->>'turnDigest' = ${turnDigest}
      order by seq desc limit 1`),
  );
  if (!waited) return undefined;
  const pending = parseJson(waited.payload) as {
    stepIndex: number;
    gates?: number[];
    calls: Array<{ batchIndex: number }>;
  };
  const [planned] = rowsOf<{ seq: number; version: number; payload: unknown; created_at: string | Date }>(
    await tx.execute(sql`
      select seq, version, payload, created_at from run_events
      where run_id = ${runId}::uuid and type = 'step_planned' and (payload->>'stepIndex')::int = ${pending.stepIndex}
      order by seq desc limit 1`),
  );
  if (!planned) return undefined;
  const step = decodeRunEvent(runId, {
    seq: Number(planned.seq),
    type: "step_planned",
    version: Number(planned.version),
    payload: parseJson(planned.payload),
    at: new Date(planned.created_at).toISOString(),
  });
  if (step.type !== "step_planned") return undefined;
  const barrier = pending.gates?.[0] ?? pending.calls[0]?.batchIndex;
  return step.payload.calls.find((call) => call.batchIndex === barrier)?.policy;
}

/** An escalation step to schedule with the lines of a wait's start (docs/notifications.md#escalation). */
export interface NewEscalation {
  runId: string;
  turnDigest: string;
  channel: string;
  step: number;
  dueAt: Date;
  item: unknown;
}

/** A due escalation step, claimed: the caller says what its event records, or null to stop it. */
export interface DueEscalation {
  id: number;
  runId: string;
  turnDigest: string;
  channel: string;
  step: number;
}

export type EscalationFacts = Omit<RunEventPayload<"approval_escalated">, "stepIndex" | "turnDigest">;

/** A person's own settings (docs/notifications.md#your-own-settings). */
export interface NotificationPreferences {
  mutedChannels: string[];
  /** Times as "HH:MM" in `timeZone` (IANA); `end` before `start` spans midnight. */
  quietHours: { start: string; end: string; timeZone: string } | null;
}

export interface NewOutboxLine {
  eventId: number;
  runId: string;
  channel: string;
  recipient: string;
  item: unknown;
  /** The recipient's decision links the item carries, stored with it. */
  links?: ReadonlyArray<Omit<DecisionLinkRecord, "usedAt">>;
  /** Held until then (the recipient's quiet hours); due at once otherwise. */
  notBefore?: Date;
}

/** The due lines of one channel and recipient, claimed together: one message. */
export interface ClaimedMessage {
  channel: string;
  recipient: string;
  messageIds: number[];
  items: unknown[];
  /** This attempt's number (1 for the first). */
  attempt: number;
}

export interface DeliveryRecord {
  id: number;
  at: string;
  channel: string;
  recipient: string;
  messageIds: number[];
  attempt: number;
  isDelivered: boolean;
  detail: string;
}

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  role: string | null;
  isActive: boolean;
  preferences: NotificationPreferences;
}

const WAIT_ENDING_TYPES = new Set(["approval_decided", "approval_expired", "run_claimed"]);

export type NotificationOutbox = ReturnType<typeof createNotificationOutbox>;

export function createNotificationOutbox(db: Db) {
  return {
    /**
     * In one transaction: takes up to `limit` noted events no other sweep holds, hands them to
     * `expand`, stores the lines it returns (each event, channel and recipient once) and deletes the
     * events. A crash before the commit leaves them for the next sweep.
     */
    async expandEvents(
      now: Date,
      limit: number,
      expand: (
        events: NotedEvent[],
      ) =>
        | Promise<{ lines: NewOutboxLine[]; escalations?: NewEscalation[] }>
        | { lines: NewOutboxLine[]; escalations?: NewEscalation[] },
    ): Promise<number> {
      return db.transaction(async (tx) => {
        const rows = rowsOf<{
          id: string | number;
          run_id: string;
          name: string;
          scenario: unknown;
          seq: number;
          type: string;
          version: number;
          payload: unknown;
          created_at: string | Date;
        }>(
          await tx.execute(sql`
            select ne.id, ne.run_id, r.name, r.scenario, e.seq, e.type, e.version, e.payload, e.created_at
            from notification_events ne
            join run_events e on e.run_id = ne.run_id and e.seq = ne.seq
            join runs r on r.id = ne.run_id
            order by ne.id
            limit ${limit}
            for update of ne skip locked`),
        );
        if (rows.length === 0) return 0;
        const noted: NotedEvent[] = [];
        for (const row of rows) {
          const told = rowsOf<{ channel: string; recipient: string }>(
            await tx.execute(sql`
              select distinct channel, recipient from notification_messages
              where run_id = ${row.run_id}::uuid and item->>'kind' = 'waiting'`),
          );
          let escalationItem: unknown;
          let barrierPolicy: PolicyDecision | undefined;
          if (row.type === "awaiting_approval" || row.type === "approval_escalated") {
            const { turnDigest } = parseJson(row.payload) as { turnDigest: string };
            barrierPolicy = await readBarrierPolicy(tx, row.run_id, turnDigest);
          }
          if (row.type === "approval_escalated") {
            const payload = parseJson(row.payload) as {
              turnDigest?: string;
              channel?: string;
              step?: number;
            };
            const [scheduled] = rowsOf<{ item: unknown }>(
              await tx.execute(sql`
                select item from notification_escalations
                where run_id = ${row.run_id}::uuid and turn_digest = ${payload.turnDigest ?? ""}
                  and channel = ${payload.channel ?? ""} and step = ${Number(payload.step)}`),
            );
            escalationItem = scheduled ? parseJson(scheduled.item) : null;
          }
          noted.push({
            escalationItem,
            ...(barrierPolicy ? { barrierPolicy } : {}),
            id: Number(row.id),
            runId: row.run_id,
            runName: row.name,
            scenario: parseJson(row.scenario),
            event: decodeRunEvent(row.run_id, {
              seq: Number(row.seq),
              type: row.type,
              version: Number(row.version),
              payload: parseJson(row.payload),
              at: new Date(row.created_at).toISOString(),
            }),
            toldOfWait: told,
          });
        }
        const { lines, escalations = [] } = await expand(noted);
        for (const line of lines) {
          if (line.links) await insertDecisionLinks(tx, line.links);
          await tx.execute(sql`
            insert into notification_messages (event_id, run_id, channel, recipient, item, next_attempt_at)
            values (${line.eventId}, ${line.runId}::uuid, ${line.channel}, ${line.recipient},
                    ${jsonParameter(line.item)}::jsonb, ${(line.notBefore ?? now).toISOString()}::timestamptz)
            on conflict (event_id, channel, recipient) do nothing`);
        }
        for (const step of escalations) {
          await tx.execute(sql`
            insert into notification_escalations (run_id, turn_digest, channel, step, due_at, item)
            values (${step.runId}::uuid, ${step.turnDigest}, ${step.channel}, ${step.step},
                    ${step.dueAt.toISOString()}::timestamptz, ${jsonParameter(step.item)}::jsonb)
            on conflict (run_id, turn_digest, channel, step) do nothing`);
        }
        // A wait that ended stops its chain at once (a due step also checks, when it is claimed).
        for (const event of noted) {
          if (!WAIT_ENDING_TYPES.has(event.event.type)) continue;
          const turnDigest = (event.event.payload as { turnDigest: string }).turnDigest;
          await tx.execute(sql`
            update notification_escalations set status = 'stopped', settled_at = ${now.toISOString()}::timestamptz
            where run_id = ${event.runId}::uuid and turn_digest = ${turnDigest} and status = 'scheduled'`);
        }
        const ids = noted.map((event) => event.id);
        await tx.execute(sql`
          delete from notification_events
          where id in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`);
        return noted.length;
      });
    },

    /**
     * Fires the escalation steps due at `now` (docs/notifications.md#escalation), at most `limit`, each
     * once across instances: in one transaction it claims the due steps nobody holds (`for update
     * skip locked`), and for each either appends `approval_escalated` to the run (whose trigger notes
     * it for the next expansion) or stops it, when the run no longer waits at that turn or `factsOf`
     * answers null (the channel or step is no longer configured). Returns the steps fired.
     */
    async fireDueEscalations(
      now: Date,
      limit: number,
      factsOf: (due: DueEscalation) => EscalationFacts | null,
    ): Promise<DueEscalation[]> {
      return db.transaction(async (tx) => {
        const due = rowsOf<{
          id: string | number;
          run_id: string;
          turn_digest: string;
          channel: string;
          step: number;
        }>(
          await tx.execute(sql`
            select id, run_id, turn_digest, channel, step from notification_escalations
            where status = 'scheduled' and due_at <= ${now.toISOString()}::timestamptz
            order by due_at, id
            limit ${limit}
            for update skip locked`),
        ).map((row) => ({
          id: Number(row.id),
          runId: row.run_id,
          turnDigest: row.turn_digest,
          channel: row.channel,
          step: Number(row.step),
        }));
        const fired: DueEscalation[] = [];
        for (const step of due) {
          // The run's row lock orders this against a decision taking the run at the same moment.
          const [run] = rowsOf<{ status: string; digest: string | null; step_index: number | null }>(
            await tx.execute(sql`
              select status, state->'pending'->>'turnDigest' as digest, (state->>'stepIndex')::int as step_index
              from runs where id = ${step.runId}::uuid for update`),
          );
          const facts = factsOf(step);
          const isWaiting =
            run?.status === "WAITING_FOR_APPROVAL" &&
            run.digest === step.turnDigest &&
            run.step_index !== null;
          if (isWaiting && facts) {
            await appendEvent(
              tx as unknown as Db,
              step.runId,
              {
                type: "approval_escalated",
                payload: { stepIndex: Number(run.step_index), turnDigest: step.turnDigest, ...facts },
              },
              { fence: null },
            );
            fired.push(step);
          }
          await tx.execute(sql`
            update notification_escalations
            set status = ${isWaiting && facts ? "fired" : "stopped"}, settled_at = ${now.toISOString()}::timestamptz
            where id = ${step.id}`);
        }
        return fired;
      });
    },

    /**
     * Claims the lines due at `now` that nobody holds, for `leaseMs`, and groups them by channel
     * and recipient. A sender that dies leaves its lines to be claimed again once the lease ends.
     */
    async claimDueMessages(now: Date, leaseMs: number, limit: number): Promise<ClaimedMessage[]> {
      const leaseEnd = new Date(now.getTime() + leaseMs).toISOString();
      const rows = rowsOf<{
        id: string | number;
        channel: string;
        recipient: string;
        item: unknown;
        attempts: number;
      }>(
        await db.execute(sql`
          with due as (
            select id from notification_messages
            where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
              and (claimed_until is null or claimed_until <= ${now.toISOString()}::timestamptz)
            order by id
            limit ${limit}
            for update skip locked
          )
          update notification_messages m
          set claimed_until = ${leaseEnd}::timestamptz, attempts = m.attempts + 1
          from due where m.id = due.id
          returning m.id, m.channel, m.recipient, m.item, m.attempts`),
      );
      const groups = new Map<string, ClaimedMessage>();
      for (const row of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
        const key = JSON.stringify([row.channel, row.recipient]);
        const group = groups.get(key) ?? {
          channel: row.channel,
          recipient: row.recipient,
          messageIds: [],
          items: [],
          attempt: 0,
        };
        group.messageIds.push(Number(row.id));
        group.items.push(parseJson(row.item));
        group.attempt = Math.max(group.attempt, Number(row.attempts));
        groups.set(key, group);
      }
      return [...groups.values()];
    },

    /**
     * Logs one attempt and settles its lines: sent, tried again at `retryAt`, or given up
     * (`retryAt` null after a failure). A settled line forgets its decision links: from then on
     * only the message has them.
     */
    async recordAttempt(
      message: ClaimedMessage,
      outcome: { isDelivered: boolean; detail: string; at: Date; retryAt: Date | null },
    ): Promise<void> {
      const ids = sql.join(
        message.messageIds.map((id) => sql`${id}`),
        sql`, `,
      );
      await db.transaction(async (tx) => {
        await tx.execute(sql`
          insert into notification_deliveries (at, channel, recipient, message_ids, attempt, is_delivered, detail)
          values (${outcome.at.toISOString()}::timestamptz, ${message.channel}, ${message.recipient},
                  ${jsonParameter(message.messageIds)}::jsonb, ${message.attempt}, ${outcome.isDelivered},
                  ${outcome.detail})`);
        if (outcome.isDelivered) {
          await tx.execute(sql`
            update notification_messages set status = 'sent', sent_at = ${outcome.at.toISOString()}::timestamptz,
              claimed_until = null, item = item - 'links'
            where id in (${ids})`);
        } else if (outcome.retryAt) {
          await tx.execute(sql`
            update notification_messages set next_attempt_at = ${outcome.retryAt.toISOString()}::timestamptz,
              claimed_until = null
            where id in (${ids})`);
        } else {
          await tx.execute(sql`
            update notification_messages set status = 'failed', claimed_until = null, item = item - 'links'
            where id in (${ids})`);
        }
      });
    },

    async listDeliveries(channel?: string): Promise<DeliveryRecord[]> {
      const rows = rowsOf<{
        id: string | number;
        at: string | Date;
        channel: string;
        recipient: string;
        message_ids: unknown;
        attempt: number;
        is_delivered: boolean;
        detail: string;
      }>(
        await db.execute(sql`
          select * from notification_deliveries
          ${channel ? sql`where channel = ${channel}` : sql``}
          order by id`),
      );
      return rows.map((row) => ({
        id: Number(row.id),
        at: new Date(row.at).toISOString(),
        channel: row.channel,
        recipient: row.recipient,
        messageIds: parseJson(row.message_ids) as number[],
        attempt: Number(row.attempt),
        isDelivered: row.is_delivered,
        detail: row.detail,
      }));
    },

    /** Everyone with an account, for resolving a channel's users and roles. */
    async listUsers(): Promise<UserRecord[]> {
      const rows = rowsOf<{
        id: string;
        name: string;
        email: string;
        role: string | null;
        banned: boolean | null;
        muted_channels: unknown;
        quiet_hours: unknown;
      }>(
        await db.execute(sql`
          select u.id, u.name, u.email, u.role, u.banned, p.muted_channels, p.quiet_hours
          from "user" u left join notification_preferences p on p.user_id = u.id
          order by u.email`),
      );
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        email: row.email,
        role: row.role,
        isActive: row.banned !== true,
        preferences: {
          mutedChannels: (parseJson(row.muted_channels) as string[] | null) ?? [],
          quietHours: (parseJson(row.quiet_hours) as NotificationPreferences["quietHours"]) ?? null,
        },
      }));
    },

    async getPreferences(userId: string): Promise<NotificationPreferences> {
      const [row] = rowsOf<{ muted_channels: unknown; quiet_hours: unknown }>(
        await db.execute(
          sql`select muted_channels, quiet_hours from notification_preferences where user_id = ${userId}`,
        ),
      );
      return {
        mutedChannels: (row && (parseJson(row.muted_channels) as string[])) ?? [],
        quietHours: (row && (parseJson(row.quiet_hours) as NotificationPreferences["quietHours"])) ?? null,
      };
    },

    /** Replaces a person's settings (the caller has checked them). */
    async setPreferences(userId: string, preferences: NotificationPreferences): Promise<void> {
      await db.execute(sql`
        insert into notification_preferences (user_id, muted_channels, quiet_hours, updated_at)
        values (${userId}, ${jsonParameter(preferences.mutedChannels)}::jsonb,
                ${jsonParameter(preferences.quietHours)}::jsonb, now())
        on conflict (user_id) do update set muted_channels = excluded.muted_channels,
          quiet_hours = excluded.quiet_hours, updated_at = now()`);
    },
  };
}
