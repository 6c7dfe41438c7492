import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@/db/client";
import {
  claimDecisionLink,
  DECISION_CHOICES,
  type DecisionChoice,
  type DecisionLinkRecord,
  findDecisionLink,
  findLinkRecipient,
} from "@/db/repositories/decision-links";
import type { Decider, PendingTurn } from "@/lib/runtime";
import type { RunService } from "@/lib/server/runs/run-service";
import { hasRole, isRole } from "@/lib/wire/roles";

/** How long a link lasts when its wait cannot expire (or sooner, by the channel's `linkTtlMinutes`). */
export const DEFAULT_LINK_TTL_MINUTES = 24 * 60;

export const hashLinkToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const decisionLinkUrl = (appUrl: string, token: string) =>
  `${appUrl.replace(/\/+$/, "")}/decision-links/${token}`;

/**
 * One link per choice for one person and one turn: 32 random bytes each, of which only the hash is
 * stored. Expires with the wait, or after `ttlMinutes` if sooner.
 */
export function mintDecisionLinks(input: {
  userId: string;
  runId: string;
  turnDigest: string;
  channel: string;
  waitExpiresAt: string | null;
  ttlMinutes: number;
  now: Date;
  appUrl: string;
}): { urls: Record<DecisionChoice, string>; records: Array<Omit<DecisionLinkRecord, "usedAt">> } {
  const ttlEnd = input.now.getTime() + input.ttlMinutes * 60_000;
  const waitEnd = input.waitExpiresAt ? Date.parse(input.waitExpiresAt) : Number.POSITIVE_INFINITY;
  const expiresAt = new Date(Math.min(ttlEnd, waitEnd));
  const urls = {} as Record<DecisionChoice, string>;
  const records: Array<Omit<DecisionLinkRecord, "usedAt">> = [];
  for (const choice of DECISION_CHOICES) {
    const token = randomBytes(32).toString("base64url");
    urls[choice] = decisionLinkUrl(input.appUrl, token);
    records.push({
      tokenHash: hashLinkToken(token),
      userId: input.userId,
      runId: input.runId,
      turnDigest: input.turnDigest,
      choice,
      channel: input.channel,
      expiresAt,
    });
  }
  return { urls, records };
}

/**
 * Who opens a link: the signed-in person, or nobody. `decider` (their role and e-mail) is what a
 * policy rule's approvers are checked against.
 */
export type LinkViewer = { id: string; name: string; decider?: Decider } | null;

/**
 * Who a link decides for: the signed-in person it was sent to, or, through the link alone, that
 * person while nobody is signed in (`isLinkAlone`), which signs no one in.
 */
export type LinkActor = { id: string; name: string; decider: Decider | null; isLinkAlone: boolean };

/** Whether a channel's links may decide for a recipient who is not signed in (the operator's `linkAlone`). */
export type AllowsLinkAlone = (channel: string) => boolean;

const NEVER_ALONE: AllowsLinkAlone = () => false;

/** Why a link cannot decide (docs/notifications.md#decision-links), with the HTTP status it answers. */
export type LinkRefusal =
  | { code: "link_unknown"; status: 404 }
  | { code: "sign_in_required"; status: 401 }
  | { code: "link_not_yours"; status: 403 }
  | { code: "recipient_cannot_decide"; status: 403 }
  | { code: "link_used"; status: 410 }
  | { code: "link_expired"; status: 410 }
  | { code: "stale_turn"; status: 409; current: PendingTurn | null; runId: string };

export type LinkView =
  | { ok: true; link: DecisionLinkRecord; pending: PendingTurn; runName: string; actor: LinkActor }
  | { ok: false; refusal: LinkRefusal };

const refuse = (refusal: LinkRefusal) => ({ ok: false as const, refusal });

/**
 * Who the link acts for. Someone signed in must be its recipient. Nobody signed in: its recipient,
 * only when the operator lets the channel's links alone decide, and only while that account is
 * active and may decide (approver or admin) — the link is then the whole of their credential, for
 * this one decision (docs/security.md#decision-links-without-signing-in).
 */
async function actorOf(
  db: Db,
  link: DecisionLinkRecord,
  viewer: LinkViewer,
  allowsLinkAlone: AllowsLinkAlone,
): Promise<LinkActor | LinkRefusal> {
  if (viewer) {
    if (viewer.id !== link.userId) return { code: "link_not_yours", status: 403 };
    return { id: viewer.id, name: viewer.name, decider: viewer.decider ?? null, isLinkAlone: false };
  }
  if (!allowsLinkAlone(link.channel)) return { code: "sign_in_required", status: 401 };
  const recipient = await findLinkRecipient(db, link.userId);
  const role = isRole(recipient?.role) ? recipient.role : "viewer";
  if (!recipient?.isActive || !hasRole(role, "approver")) {
    return { code: "recipient_cannot_decide", status: 403 };
  }
  return {
    id: recipient.id,
    name: recipient.name,
    decider: { role, email: recipient.email, userId: recipient.id },
    isLinkAlone: true,
  };
}

/**
 * What opening a link shows (a GET, which never decides): the turn it was sent for, if it is still
 * the one waiting, for the person it was sent to, unused and unexpired.
 */
export async function openDecisionLink(
  db: Db,
  service: RunService,
  token: string,
  viewer: LinkViewer,
  now: Date = new Date(),
  allowsLinkAlone: AllowsLinkAlone = NEVER_ALONE,
): Promise<LinkView> {
  const link = await findDecisionLink(db, hashLinkToken(token));
  if (!link) return refuse({ code: "link_unknown", status: 404 });
  const actor = await actorOf(db, link, viewer, allowsLinkAlone);
  if ("code" in actor) return refuse(actor);
  if (link.usedAt) return refuse({ code: "link_used", status: 410 });
  if (link.expiresAt.getTime() <= now.getTime()) return refuse({ code: "link_expired", status: 410 });
  const report = await service.getReport(link.runId);
  if (!report) return refuse({ code: "link_unknown", status: 404 });
  if (!report.pending || report.pending.turnDigest !== link.turnDigest) {
    return refuse({ code: "stale_turn", status: 409, current: report.pending, runId: link.runId });
  }
  return { ok: true, link, pending: report.pending, runName: report.name, actor };
}

/**
 * Confirms a link (the POST): checks it as `openDecisionLink` does, uses it (once, atomically),
 * and decides the turn it was bound to as the person it was sent to. The audit records that it
 * came through a link, from which channel, and whether the link alone decided.
 */
export async function confirmDecisionLink(
  db: Db,
  service: RunService,
  token: string,
  viewer: LinkViewer,
  now: Date = new Date(),
  allowsLinkAlone: AllowsLinkAlone = NEVER_ALONE,
): Promise<
  | { ok: true; runId: string; choice: DecisionChoice; isLinkAlone: boolean }
  | { ok: false; refusal: LinkRefusal }
> {
  const opened = await openDecisionLink(db, service, token, viewer, now, allowsLinkAlone);
  if (!opened.ok) return opened;
  const { link, actor } = opened;
  if (link.choice === "open") {
    return { ok: true, runId: link.runId, choice: "open", isLinkAlone: actor.isLinkAlone };
  }
  const claimed = await claimDecisionLink(db, link.tokenHash, actor.id, now);
  if (!claimed) return refuse({ code: "link_used", status: 410 });
  await service.decide(link.runId, {
    approve: link.choice === "approve",
    turnDigest: link.turnDigest,
    actor: actor.name,
    actorId: actor.id,
    decider: actor.decider,
    via: { kind: actor.isLinkAlone ? "link_alone" : "link", channel: link.channel },
    reason: `${link.choice === "approve" ? "Approved" : "Denied"} through a decision link sent by the channel "${link.channel}"`,
  });
  return { ok: true, runId: link.runId, choice: link.choice, isLinkAlone: actor.isLinkAlone };
}
