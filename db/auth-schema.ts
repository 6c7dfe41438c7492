import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * The tables better-auth keeps (sign-in, sessions, API tokens), in the app's
 * own database and migrations. Column names follow better-auth's models: its
 * drizzle adapter maps by these property names. `role` is one of viewer,
 * operator, approver, admin (lib/wire/roles.ts).
 */

const at = (name: string) => timestamp(name, { withTimezone: true });

export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").default(false).notNull(),
  image: text("image"),
  createdAt: at("created_at").defaultNow().notNull(),
  updatedAt: at("updated_at")
    .defaultNow()
    .$onUpdate(() => new Date())
    .notNull(),
  role: text("role"),
  banned: boolean("banned").default(false),
  banReason: text("ban_reason"),
  banExpires: at("ban_expires"),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: at("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: at("created_at").defaultNow().notNull(),
    updatedAt: at("updated_at")
      .$onUpdate(() => new Date())
      .notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    impersonatedBy: text("impersonated_by"),
  },
  (table) => [index("session_user_id_idx").on(table.userId)],
);

export const account = pgTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: at("access_token_expires_at"),
    refreshTokenExpiresAt: at("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: at("created_at").defaultNow().notNull(),
    updatedAt: at("updated_at")
      .$onUpdate(() => new Date())
      .notNull(),
  },
  (table) => [index("account_user_id_idx").on(table.userId)],
);

export const verification = pgTable(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: at("expires_at").notNull(),
    createdAt: at("created_at").defaultNow().notNull(),
    updatedAt: at("updated_at")
      .defaultNow()
      .$onUpdate(() => new Date())
      .notNull(),
  },
  (table) => [index("verification_identifier_idx").on(table.identifier)],
);

/**
 * API tokens: stored as a SHA-256 hash; `referenceId` is the user; `metadata` holds `{ role }`.
 * A name is unique per owner (two people may both call theirs "ci").
 */
export const apikey = pgTable(
  "apikey",
  {
    id: text("id").primaryKey(),
    configId: text("config_id").default("default").notNull(),
    name: text("name"),
    start: text("start"),
    referenceId: text("reference_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    prefix: text("prefix"),
    key: text("key").notNull(),
    refillInterval: integer("refill_interval"),
    refillAmount: integer("refill_amount"),
    lastRefillAt: at("last_refill_at"),
    enabled: boolean("enabled").default(true),
    rateLimitEnabled: boolean("rate_limit_enabled").default(true),
    rateLimitTimeWindow: integer("rate_limit_time_window").default(86_400_000),
    rateLimitMax: integer("rate_limit_max").default(10),
    requestCount: integer("request_count").default(0),
    remaining: integer("remaining"),
    lastRequest: at("last_request"),
    expiresAt: at("expires_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    permissions: text("permissions"),
    metadata: text("metadata"),
  },
  (table) => [
    index("apikey_config_id_idx").on(table.configId),
    index("apikey_reference_id_idx").on(table.referenceId),
    index("apikey_key_idx").on(table.key),
    uniqueIndex("apikey_owner_name_unique").on(table.referenceId, table.name),
  ],
);

/** Settings the instances share, such as the session-signing secret generated on first start. */
export const appSettings = pgTable("app_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** What an account change did, as the accounts audit records it (lib/server/auth/account-changes.ts). */
export const ACCOUNT_EVENT_KINDS = [
  "user_added",
  "role_changed",
  "user_deactivated",
  "user_reactivated",
  "user_removed",
  "password_reset",
  "password_changed",
] as const;
export type AccountEventKind = (typeof ACCOUNT_EVENT_KINDS)[number];

/**
 * The accounts audit: who changed whose account, and how. Append-only (the
 * database refuses updates and deletes), with no foreign key: a removed
 * person's rows, and their e-mail as it was, stay readable.
 */
export const accountEvents = pgTable(
  "account_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: at("at").defaultNow().notNull(),
    kind: text("kind").notNull(),
    /** Who made the change; null for the CLI on the database itself (no sign-in). */
    actorId: text("actor_id"),
    actorEmail: text("actor_email"),
    /** Whose account changed, as they were named then. */
    subjectId: text("subject_id").notNull(),
    subjectEmail: text("subject_email").notNull(),
    /** What changed, for a person to read (`viewer → admin`); never a password. */
    detail: text("detail"),
  },
  (table) => [
    index("account_events_subject_id_idx").on(table.subjectId),
    check(
      "account_events_kind_check",
      sql`${table.kind} in ('user_added', 'role_changed', 'user_deactivated', 'user_reactivated', 'user_removed', 'password_reset', 'password_changed')`,
    ),
  ],
);
