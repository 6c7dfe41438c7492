/** Decision links over drizzle (docs/notifications.md#decision-links): kept by their token's hash, claimed once. */
import { sql } from "drizzle-orm";
import type { Db } from "../client";
import type { Transaction } from "./append-event";
import { rowsOf } from "./append-event";

export const DECISION_CHOICES = ["approve", "deny", "open"] as const;
export type DecisionChoice = (typeof DECISION_CHOICES)[number];

export interface DecisionLinkRecord {
  tokenHash: string;
  userId: string;
  runId: string;
  turnDigest: string;
  choice: DecisionChoice;
  channel: string;
  expiresAt: Date;
  usedAt: Date | null;
}

type LinkRow = {
  token_hash: string;
  user_id: string;
  run_id: string;
  turn_digest: string;
  choice: DecisionChoice;
  channel: string;
  expires_at: string | Date;
  used_at: string | Date | null;
};

const toRecord = (row: LinkRow): DecisionLinkRecord => ({
  tokenHash: row.token_hash,
  userId: row.user_id,
  runId: row.run_id,
  turnDigest: row.turn_digest,
  choice: row.choice,
  channel: row.channel,
  expiresAt: new Date(row.expires_at),
  usedAt: row.used_at === null ? null : new Date(row.used_at),
});

export async function insertDecisionLinks(
  db: Db | Transaction,
  links: ReadonlyArray<Omit<DecisionLinkRecord, "usedAt">>,
): Promise<void> {
  for (const link of links) {
    await db.execute(sql`
      insert into decision_links (token_hash, user_id, run_id, turn_digest, choice, channel, expires_at)
      values (${link.tokenHash}, ${link.userId}, ${link.runId}::uuid, ${link.turnDigest}, ${link.choice},
              ${link.channel}, ${link.expiresAt.toISOString()}::timestamptz)`);
  }
}

export async function findDecisionLink(db: Db, tokenHash: string): Promise<DecisionLinkRecord | null> {
  const [row] = rowsOf<LinkRow>(
    await db.execute(sql`select * from decision_links where token_hash = ${tokenHash}`),
  );
  return row ? toRecord(row) : null;
}

/**
 * Uses a link once: marks it used only if it is unused, unexpired at `now` and the person's. Two
 * uses at once: one wins, the other finds it used.
 */
export async function claimDecisionLink(
  db: Db,
  tokenHash: string,
  userId: string,
  now: Date,
): Promise<DecisionLinkRecord | null> {
  const [row] = rowsOf<LinkRow>(
    await db.execute(sql`
      update decision_links set used_at = ${now.toISOString()}::timestamptz
      where token_hash = ${tokenHash} and used_at is null and user_id = ${userId}
        and expires_at > ${now.toISOString()}::timestamptz
      returning *`),
  );
  return row ? toRecord(row) : null;
}

/** The person a link was sent to, as the link alone acts for them (docs/notifications.md#the-link-alone). */
export interface LinkRecipient {
  id: string;
  name: string;
  email: string;
  role: string | null;
  isActive: boolean;
}

export async function findLinkRecipient(db: Db, userId: string): Promise<LinkRecipient | null> {
  const [row] = rowsOf<{
    id: string;
    name: string;
    email: string;
    role: string | null;
    banned: boolean | null;
  }>(await db.execute(sql`select id, name, email, role, banned from "user" where id = ${userId}`));
  return row
    ? { id: row.id, name: row.name, email: row.email, role: row.role, isActive: row.banned !== true }
    : null;
}
