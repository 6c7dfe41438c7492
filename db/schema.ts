import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { RunStatus } from "../lib/runtime/run/run-types";
import { user } from "./auth-schema";
import { storableJsonb, storableText } from "./storable-columns";

export * from "./auth-schema";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const runs = pgTable(
  "runs",
  {
    id: uuid("id").primaryKey(),
    name: storableText("name").notNull(),
    // The runtime's RUN_STATUSES, kept as text with a CHECK (below) so both drivers agree.
    status: text("status").$type<RunStatus>().notNull(),
    /** The scenario as submitted, after validation. */
    scenario: storableJsonb("scenario").notNull(),
    limits: storableJsonb("limits").notNull(),
    modelCalls: integer("model_calls").notNull().default(0),
    /** Last allocated event sequence number; events take `last_seq + 1` in the same transaction. */
    lastSeq: integer("last_seq").notNull().default(0),
    /** Who holds the run while it is RUNNING, and until when (docs/architecture.md#durable-execution). */
    claimToken: text("claim_token"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    /** A cancellation asked of a RUNNING run, taken by its worker at the next segment boundary. */
    cancelRequested: text("cancel_requested").$type<"turn" | "run" | null>(),
    /** Versioned suspended state (carries its own `schemaVersion`); decoded with zod. */
    state: storableJsonb("state"),
    waitingSince: timestamp("waiting_since", { withTimezone: true }),
    error: storableJsonb("error").$type<{ code: string; message: string } | null>(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** Who started the run: a user id (null for headless CLI runs and runs from before sign-in existed). */
    startedById: text("started_by_id"),
    startedByName: storableText("started_by_name"),
    /** Tools granted for the rest of the run ("always allow"): tool name → { decisionId, actor, actorId }. */
    allowedTools: storableJsonb("allowed_tools").notNull().default(sql`'{}'::jsonb`),
    /** While it waits: when the wait expires, and when to announce that it soon will (null once announced). */
    approvalExpiresAt: timestamp("approval_expires_at", { withTimezone: true }),
    approvalWarnAt: timestamp("approval_warn_at", { withTimezone: true }),
    /** When someone archived it: the runs list and the inbox leave it out unless asked (docs/housekeeping.md). */
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (table) => [
    check(
      "runs_status_check",
      sql`${table.status} in ('RUNNING', 'WAITING_FOR_APPROVAL', 'COMPLETED', 'FAILED', 'CANCELLED')`,
    ),
    // The inbox lists waiting runs newest first; recovery scans expired leases.
    // The inbox pages waiting runs newest first with a (waiting_since, id) cursor: a backward index scan.
    index("runs_status_waiting_since_id_idx").on(table.status, table.waitingSince, table.id),
    // The inbox as people see it (waiting, not archived): its total is an index-only count. Without
    // it, counting 10,000 waits read their rows for `archived_at` (44-56 ms on a busy machine, 3 with).
    index("runs_inbox_idx")
      .on(table.waitingSince, table.id)
      .where(sql`${table.status} = 'WAITING_FOR_APPROVAL' and ${table.archivedAt} is null`),
    index("runs_lease_expires_at_idx").on(table.leaseExpiresAt),
    index("runs_approval_expires_at_idx").on(table.approvalExpiresAt),
    index("runs_created_at_idx").on(table.createdAt),
  ],
);

export const steps = pgTable(
  "steps",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    index: integer("index").notNull(),
    /** Assistant text of the completion, in rows written before it was kept only in the step_planned event (now null). */
    text: storableText("text"),
    plan: storableJsonb("plan").notNull(),
    metrics: storableJsonb("metrics").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.index] })],
);

export const toolCalls = pgTable(
  "tool_calls",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    stepIndex: integer("step_index").notNull(),
    batchIndex: integer("batch_index").notNull(),
    callId: storableText("call_id").notNull(),
    name: storableText("name").notNull(),
    /** The arguments exactly as the model emitted them. */
    arguments: storableText("raw_arguments").notNull(),
    status: text("status").notNull(),
    result: storableJsonb("result"),
    error: storableJsonb("error").$type<{ code: string; message: string } | null>(),
    startSeq: integer("start_seq"),
    settleSeq: integer("settle_seq"),
  },
  (table) => [primaryKey({ columns: [table.runId, table.stepIndex, table.batchIndex] })],
);

/**
 * Append-only audit of every human decision (docs/decisions.md#what-happens-to-a-decision-in-order,
 * step 6).
 */
export const approvals = pgTable(
  "approvals",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    // No foreign key: the audit outlives a deleted run (its name stays in run_changes).
    runId: uuid("run_id").notNull(),
    turnDigest: text("turn_digest").notNull(),
    approve: boolean("approve").notNull(),
    /** The signed-in person's display name (or a scenario's named actor in a headless run). */
    actor: storableText("actor").notNull(),
    /** Their user id; null for headless runs and decisions from before sign-in existed. */
    actorId: text("actor_id"),
    reason: storableText("reason"),
    decidedAt: timestamp("decided_at", { withTimezone: true }).notNull().defaultNow(),
    // What each row decides; null on rows written before decisions named their gate.
    /** Shared by the rows of one decision (an approval of every gate of a turn writes one per gate). */
    decisionId: uuid("decision_id"),
    /** decision | expiry | automatic */
    kind: text("kind").notNull().default("decision"),
    /** gate | turn */
    scope: text("scope").notNull().default("gate"),
    batchIndex: integer("batch_index"),
    callId: storableText("call_id"),
    toolName: storableText("tool_name"),
    /** The gate's arguments as shown, and the digest of the call with them. */
    arguments: storableText("arguments"),
    argumentsDigest: text("arguments_digest"),
    /** What an approver changed them to, and its digest; null when unchanged. */
    editedArguments: storableText("edited_arguments"),
    editedDigest: text("edited_digest"),
    /** For an automatic approval: the decision that granted it. */
    grantedBy: uuid("granted_by"),
    /** For an automatic approval a policy rule gave: the policy version and the rule (docs/policies.md#the-audit). */
    policyVersion: integer("policy_version"),
    policyRule: storableText("policy_rule"),
    /**
     * A decision that came through a decision link (docs/notifications.md#decision-links): `link`
     * (its recipient signed in) or `link_alone` (nobody signed in); null through the app's controls.
     */
    via: text("via"),
    /** The notification channel that sent that link. */
    viaChannel: text("via_channel"),
  },
  (table) => [
    index("approvals_run_id_idx").on(table.runId, table.id),
    check(
      "approvals_kind_check",
      sql`${table.kind} in ('decision', 'expiry', 'automatic', 'voided', 'partial')`,
    ),
    check("approvals_scope_check", sql`${table.scope} in ('gate', 'turn')`),
    check(
      "approvals_via_check",
      sql`(${table.via} is null and ${table.viaChannel} is null) or (${table.via} in ('link', 'link_alone') and ${table.viaChannel} is not null)`,
    ),
  ],
);

/** What people did to runs as records (archive, unarchive, delete): append-only, no foreign key, so a deleted run stays named (docs/housekeeping.md). */
export const RUN_CHANGE_KINDS = ["archived", "unarchived", "deleted"] as const;
export type RunChangeKind = (typeof RUN_CHANGE_KINDS)[number];

export const runChanges = pgTable(
  "run_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    kind: text("kind").$type<RunChangeKind>().notNull(),
    runId: uuid("run_id").notNull(),
    /** The run's name when it changed: what the audit shows once the run is gone. */
    runName: storableText("run_name").notNull(),
    /** Who did it; null from the command line on the database (no sign-in there). */
    actorId: text("actor_id"),
    actorName: storableText("actor_name"),
  },
  (table) => [
    index("run_changes_run_id_idx").on(table.runId, table.id),
    check("run_changes_kind_check", sql`${table.kind} in ('archived', 'unarchived', 'deleted')`),
  ],
);

/** Append-only event log with a gap-free per-run sequence (docs/architecture.md#events). */
export const runEvents = pgTable(
  "run_events",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    /** The version of the type's payload it was written at (the catalogue in lib/runtime/events). */
    version: integer("version").notNull().default(1),
    payload: storableJsonb("payload").notNull(),
    createdAt: createdAt(),
  },
  // Partitioned by month of `created_at` (migration 0017, db/event-partitions.ts), which every
  // key must therefore hold. The key is still the replay index of each partition: `WHERE run_id = $1
  // AND seq > $2 ORDER BY seq`. A seq stays unique per run because appends take it from
  // `runs.last_seq` under the run's row lock; the key alone no longer refuses one across months.
  (table) => [primaryKey({ columns: [table.runId, table.seq, table.createdAt] })],
);

/** Each run's virtual workspace: file tools never touch the host file system. */
export const workspaceFiles = pgTable(
  "workspace_files",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    path: storableText("path").notNull(),
    content: storableText("content").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.path] })],
);

/** Key-value memory of the `memory_get` / `memory_set` tools, per run. */
export const memoryEntries = pgTable(
  "memory_entries",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    key: storableText("key").notNull(),
    value: storableJsonb("value"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.key] })],
);

/** Tasks created by `task_create`, per run. */
export const tasks = pgTable(
  "tasks",
  {
    id: uuid("id").primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    title: storableText("title").notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("tasks_run_id_idx").on(table.runId, table.createdAt)],
);

/**
 * The turns an agent outside the playground submitted (docs/agent-api.md):
 * turn N is its run's completion N, read by the run's agent model.
 */
export const agentTurns = pgTable(
  "agent_turns",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    turn: integer("turn").notNull(),
    /** sha256 of the model's text and calls as sent: a resubmission must match it. */
    digest: text("digest").notNull(),
    text: storableText("text"),
    calls: storableJsonb("calls").notNull(),
    usage: storableJsonb("usage"),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.turn] })],
);

/**
 * Calls released to an agent: one row per attempt, fenced by its token. A
 * row leaves `released` once, by one conditional update: reported, lapsed
 * (lease ended) or cancelled.
 */
export const agentReleases = pgTable(
  "agent_releases",
  {
    token: text("token").primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    stepIndex: integer("step_index").notNull(),
    batchIndex: integer("batch_index").notNull(),
    attempt: integer("attempt").notNull(),
    callId: storableText("call_id").notNull(),
    name: text("name").notNull(),
    arguments: storableText("arguments").notNull(),
    state: text("state").$type<"released" | "reported" | "lapsed" | "cancelled">().notNull(),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }).notNull(),
    report: storableJsonb("report"),
    reportDigest: text("report_digest"),
    createdAt: createdAt(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (table) => [
    check(
      "agent_releases_state_check",
      sql`${table.state} in ('released', 'reported', 'lapsed', 'cancelled')`,
    ),
    uniqueIndex("agent_releases_attempt_idx").on(
      table.runId,
      table.stepIndex,
      table.batchIndex,
      table.attempt,
    ),
  ],
);

/**
 * The run events people are told about (a wait started, is about to expire, ended), noted by a
 * trigger on `run_events` in the event's own transaction, so none is lost to a crash and an
 * ungated run notes nothing (docs/notifications.md#how-delivery-works). A sweep expands each into
 * the messages below and deletes it in one transaction, so each is expanded once and none piles up.
 */
export const notificationEvents = pgTable("notification_events", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  runId: uuid("run_id")
    .notNull()
    .references(() => runs.id, { onDelete: "cascade" }),
  seq: integer("seq").notNull(),
  type: text("type").notNull(),
  createdAt: createdAt(),
});

/**
 * The outbox: one line per event, channel and recipient. A sweep claims the due lines of one
 * channel and recipient together (`for update skip locked`) and sends them as one message.
 */
export const notificationMessages = pgTable(
  "notification_messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    eventId: integer("event_id").notNull(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** The channel's name in PLAYGROUND_NOTIFICATIONS. */
    channel: text("channel").notNull(),
    /** A user id (e-mail), or `*` for a hook that carries everyone's links in one message. */
    recipient: text("recipient").notNull(),
    /** What the message says of this event (NotificationItem, lib/server/notifications). */
    item: storableJsonb("item").notNull(),
    /** pending | sent | failed */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** While a sender holds it: another instance leaves it alone until then. */
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("notification_messages_once_idx").on(table.eventId, table.channel, table.recipient),
    index("notification_messages_due_idx").on(table.status, table.nextAttemptAt),
    check("notification_messages_status_check", sql`${table.status} in ('pending', 'sent', 'failed')`),
  ],
);

/** The delivery log: every attempt to send a message, with what the receiver answered. */
export const notificationDeliveries = pgTable(
  "notification_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    channel: text("channel").notNull(),
    recipient: text("recipient").notNull(),
    /** The outbox lines the message carried. */
    messageIds: storableJsonb("message_ids").$type<number[]>().notNull(),
    attempt: integer("attempt").notNull(),
    isDelivered: boolean("is_delivered").notNull(),
    /** The receiver's status, or why it could not be reached. */
    detail: storableText("detail").notNull(),
  },
  (table) => [index("notification_deliveries_channel_idx").on(table.channel, table.id)],
);

/**
 * The escalation steps of a wait (docs/notifications.md#escalation): scheduled when the channel is
 * told the run waits, one row per channel and step, bound to the turn digest. A sweep claims the
 * due rows (`for update skip locked`) and, in the same transaction, either fires the step (the run
 * event `approval_escalated`, which the trigger notes like any other) or stops it because the wait
 * ended or changed.
 */
export const notificationEscalations = pgTable(
  "notification_escalations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    turnDigest: text("turn_digest").notNull(),
    channel: text("channel").notNull(),
    /** 1 for the chain's first step. */
    step: integer("step").notNull(),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    /** The waiting item the step's people are sent (NotificationItem, without links). */
    item: storableJsonb("item").notNull(),
    /** scheduled | fired | stopped */
    status: text("status").notNull().default("scheduled"),
    settledAt: timestamp("settled_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("notification_escalations_once_idx").on(
      table.runId,
      table.turnDigest,
      table.channel,
      table.step,
    ),
    index("notification_escalations_due_idx").on(table.status, table.dueAt),
    check("notification_escalations_status_check", sql`${table.status} in ('scheduled', 'fired', 'stopped')`),
  ],
);

/**
 * A person's own notification settings (docs/notifications.md#your-own-settings), set on /account:
 * the channels they opted out of, and quiet hours during which messages to them are held (never
 * dropped). No row: every channel, no quiet hours.
 */
export const notificationPreferences = pgTable("notification_preferences", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  /** Names of channels that do not reach this person. */
  mutedChannels: storableJsonb("muted_channels").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  /** `{ start: "22:00", end: "07:00", timeZone: "Europe/Paris" }`, or null for none. */
  quietHours: storableJsonb("quiet_hours").$type<{ start: string; end: string; timeZone: string } | null>(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Decision links (docs/notifications.md#decision-links): one per recipient and choice, bound to the
 * person, the run, the turn digest and the choice; kept by the hash of their token, used once.
 */
export const decisionLinks = pgTable(
  "decision_links",
  {
    /** SHA-256 (hex) of the token in the link; the token itself is never stored here. */
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    turnDigest: text("turn_digest").notNull(),
    /** approve | deny | open */
    choice: text("choice").notNull(),
    /** The channel that sent it, for the audit. */
    channel: text("channel").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index("decision_links_run_id_idx").on(table.runId),
    check("decision_links_choice_check", sql`${table.choice} in ('approve', 'deny', 'open')`),
  ],
);

/**
 * Every published version of the approval policy (docs/policies.md#publishing-versions-and-shadow),
 * append-only: the newest `live` version decides; the newest `shadow` version published after it
 * only records what it would have done.
 */
export const policies = pgTable(
  "policies",
  {
    version: integer("version").primaryKey(),
    /** The document exactly as published (YAML or JSON). */
    document: storableText("document").notNull(),
    mode: text("mode").$type<"live" | "shadow">().notNull(),
    publishedById: text("published_by_id").notNull(),
    publishedByName: storableText("published_by_name").notNull(),
    publishedAt: timestamp("published_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check("policies_mode_check", sql`${table.mode} in ('live', 'shadow')`)],
);

/**
 * Scoped grants (docs/policies.md#grants): an approval's standing waiver of a tool's gate, for a
 * scope, under an optional CEL condition, until an expiry, for a number of uses. Never deleted:
 * a revocation is recorded on the row, and each use is audited in `approvals` (`granted_by`).
 */
export const toolGrants = pgTable(
  "tool_grants",
  {
    id: uuid("id").primaryKey(),
    toolName: text("tool_name").notNull(),
    scope: text("scope").$type<"run" | "agent" | "user" | "everyone">().notNull(),
    /** The subject the scope names; the other two are null. */
    runId: uuid("run_id"),
    agent: storableText("agent"),
    /** With `agent`, for an outside agent's: the person whose token opened the run it was given in. */
    agentOwnerId: text("agent_owner_id"),
    agentOwnerName: storableText("agent_owner_name"),
    starterId: text("starter_id"),
    condition: storableText("condition"),
    /** For an MCP tool: the fingerprint of the definition that was approved. */
    toolFingerprint: text("tool_fingerprint"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    maxUses: integer("max_uses"),
    /** Counted in the statement that checks the limit, so two instances never both take the last use. */
    uses: integer("uses").notNull().default(0),
    /** Not a foreign key: a grant (and its record) outlives a deleted run. */
    createdInRunId: uuid("created_in_run_id").notNull(),
    createdById: text("created_by_id"),
    createdByName: storableText("created_by_name").notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    revokedById: text("revoked_by_id"),
    revokedByName: storableText("revoked_by_name"),
  },
  (table) => [
    index("tool_grants_live_idx").on(table.toolName).where(sql`${table.revokedAt} is null`),
    check("tool_grants_scope_check", sql`${table.scope} in ('run', 'agent', 'user', 'everyone')`),
    check(
      "tool_grants_uses_check",
      sql`${table.uses} >= 0 and (${table.maxUses} is null or ${table.uses} <= ${table.maxUses})`,
    ),
  ],
);
