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
import { storableJsonb, storableText } from "./storable-columns";

export * from "./auth-schema";

/** Statuses of a run (SPEC §6). Kept as text with a CHECK so both drivers agree. */
export const RUN_STATUSES = ["RUNNING", "WAITING_FOR_APPROVAL", "COMPLETED", "FAILED", "CANCELLED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const runs = pgTable(
  "runs",
  {
    id: uuid("id").primaryKey(),
    name: storableText("name").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    /** The scenario as submitted, after validation. */
    scenario: storableJsonb("scenario").notNull(),
    limits: storableJsonb("limits").notNull(),
    modelCalls: integer("model_calls").notNull().default(0),
    /** Last allocated event sequence number; events take `last_seq + 1` in the same transaction. */
    lastSeq: integer("last_seq").notNull().default(0),
    /** Who holds the run while it is RUNNING, and until when (SPEC §5–§6). */
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
  },
  (table) => [
    check(
      "runs_status_check",
      sql`${table.status} in ('RUNNING', 'WAITING_FOR_APPROVAL', 'COMPLETED', 'FAILED', 'CANCELLED')`,
    ),
    // The inbox lists waiting runs newest first; recovery scans expired leases.
    // The inbox pages waiting runs newest first with a (waiting_since, id) cursor: a backward index scan.
    index("runs_status_waiting_since_id_idx").on(table.status, table.waitingSince, table.id),
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

/** Append-only audit of every human decision (SPEC §5). */
export const approvals = pgTable(
  "approvals",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
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
  },
  (table) => [
    index("approvals_run_id_idx").on(table.runId, table.id),
    check("approvals_kind_check", sql`${table.kind} in ('decision', 'expiry', 'automatic', 'voided')`),
    check("approvals_scope_check", sql`${table.scope} in ('gate', 'turn')`),
  ],
);

/** Append-only event log with a gap-free per-run sequence (SPEC §6). */
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
  // The primary key is also the replay index: `WHERE run_id = $1 AND seq > $2 ORDER BY seq`.
  (table) => [primaryKey({ columns: [table.runId, table.seq] })],
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
