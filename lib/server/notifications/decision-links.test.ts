import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertDecisionLinks } from "@/db/repositories/decision-links";
import { testDriverName } from "@/db/testing/test-database";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";
import { confirmDecisionLink, mintDecisionLinks, openDecisionLink } from "./decision-links";

let harness: ScenarioHarness;
beforeAll(async () => {
  harness = await openScenarioHarness();
  // The people links are sent to, when the link alone acts for them (Ada's other links are used signed in).
  await harness.handle.db.execute(sql`
    insert into "user" (id, name, email, role) values
      ('u-ada', 'Ada', 'ada@example.com', 'approver'),
      ('u-vi', 'Vi', 'vi@example.com', 'viewer')`);
});
afterAll(() => harness?.close());

const ada = { id: "u-ada", name: "Ada" };
const bo = { id: "u-bo", name: "Bo" };

/** Two gated writes, one turn after the other: approving the first makes a new turn wait. */
function twoWaitsScenario(name: string) {
  return buildScenario({
    name,
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
        { calls: [{ name: "write_file", arguments: { path: "b.txt", content: "B" } }] },
        { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
      ],
    },
  });
}

async function waitingRun(name: string) {
  const { runId, settled } = await harness.service.startRun(twoWaitsScenario(name));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const turnDigest = (await harness.service.getReport(runId))?.pending?.turnDigest ?? "";
  return { runId, turnDigest };
}

/** Ada's three links for the run's turn, stored as the notifier stores them; returns the tokens. */
async function linksFor(
  runId: string,
  turnDigest: string,
  options: { now?: Date; ttlMinutes?: number; userId?: string; channel?: string } = {},
) {
  const { urls, records } = mintDecisionLinks({
    userId: options.userId ?? ada.id,
    runId,
    turnDigest,
    channel: options.channel ?? "mail",
    waitExpiresAt: null,
    ttlMinutes: options.ttlMinutes ?? 60,
    now: options.now ?? new Date(),
    appUrl: "https://playground.example",
  });
  await insertDecisionLinks(harness.handle.db, records);
  const token = (url: string) => url.split("/").at(-1) ?? "";
  return { approve: token(urls.approve), deny: token(urls.deny), open: token(urls.open) };
}

describe(`decision links on ${testDriverName}`, () => {
  it("only the hash of a token is stored, and an unknown token is refused", async () => {
    const { runId, turnDigest } = await waitingRun("hashes");
    const tokens = await linksFor(runId, turnDigest);
    expect(tokens.approve).toMatch(/^[\w-]{43}$/);
    expect(
      await openDecisionLink(harness.handle.db, harness.service, `${tokens.approve}x`, ada),
    ).toMatchObject({
      ok: false,
      refusal: { code: "link_unknown" },
    });
  });

  it("asks to sign in, and refuses a link forwarded to another signed-in person, deciding nothing", async () => {
    const { runId, turnDigest } = await waitingRun("forwarded");
    const tokens = await linksFor(runId, turnDigest);
    expect(await confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, null)).toMatchObject(
      {
        ok: false,
        refusal: { code: "sign_in_required", status: 401 },
      },
    );
    expect(await confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, bo)).toMatchObject({
      ok: false,
      refusal: { code: "link_not_yours", status: 403 },
    });
    expect((await harness.service.getReport(runId))?.pending?.turnDigest).toBe(turnDigest);
    // Still Ada's to use.
    expect(await confirmDecisionLink(harness.handle.db, harness.service, tokens.deny, ada)).toMatchObject({
      ok: true,
      choice: "deny",
    });
    const report = await harness.service.getReport(runId);
    expect(report?.decisions[0]).toMatchObject({
      approve: false,
      actor: "Ada",
      reason: 'Denied through a decision link sent by the channel "mail"',
    });
  });

  it("refuses an expired link", async () => {
    const { runId, turnDigest } = await waitingRun("expired");
    const tokens = await linksFor(runId, turnDigest, { ttlMinutes: 1 });
    const later = new Date(Date.now() + 61_000);
    expect(
      await confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, ada, later),
    ).toMatchObject({
      ok: false,
      refusal: { code: "link_expired", status: 410 },
    });
    expect((await harness.service.getReport(runId))?.pending?.turnDigest).toBe(turnDigest);
  });

  it("a link for a turn that changed is refused as the stale tab is, with the current turn", async () => {
    const { runId, turnDigest } = await waitingRun("stale");
    const tokens = await linksFor(runId, turnDigest);
    await harness.service.decide(runId, { approve: true, turnDigest, actor: "Ada", actorId: ada.id });
    await expect
      .poll(async () => (await harness.service.getReport(runId))?.pending?.turnDigest)
      .not.toBe(turnDigest);
    const current = (await harness.service.getReport(runId))?.pending;
    expect(current).toBeTruthy();
    expect(await confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, ada)).toEqual({
      ok: false,
      refusal: { code: "stale_turn", status: 409, current, runId },
    });
    // The new turn still waits: the stale link decided nothing.
    expect((await harness.service.getReport(runId))?.pending?.turnDigest).toBe(current?.turnDigest);
  });

  it("two confirmations at once: one decides, the other is refused", async () => {
    const { runId, turnDigest } = await waitingRun("twice at once");
    const tokens = await linksFor(runId, turnDigest);
    const results = await Promise.all([
      confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, ada),
      confirmDecisionLink(harness.handle.db, harness.service, tokens.approve, ada),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.find((result) => !result.ok)).toMatchObject({ refusal: { code: "link_used" } });
  });

  describe("the link alone, where the operator lets it decide", () => {
    // Only the channel "alone" lets its links decide for someone not signed in.
    const onlyAlone = (channel: string) => channel === "alone";
    const open = (token: string, viewer: typeof ada | null, now = new Date()) =>
      openDecisionLink(harness.handle.db, harness.service, token, viewer, now, onlyAlone);
    const confirm = (token: string, viewer: typeof ada | null, now = new Date()) =>
      confirmDecisionLink(harness.handle.db, harness.service, token, viewer, now, onlyAlone);

    it("decides once, as the person the link was sent to, and the audit says the link alone did", async () => {
      const { runId, turnDigest } = await waitingRun("alone");
      const tokens = await linksFor(runId, turnDigest, { channel: "alone" });
      const opened = await open(tokens.approve, null);
      expect(opened).toMatchObject({ ok: true, actor: { id: ada.id, name: "Ada", isLinkAlone: true } });
      // Opening decided nothing.
      expect((await harness.service.getReport(runId))?.pending?.turnDigest).toBe(turnDigest);
      expect(await confirm(tokens.approve, null)).toEqual({
        ok: true,
        runId,
        choice: "approve",
        isLinkAlone: true,
      });
      expect((await harness.service.getReport(runId))?.decisions[0]).toMatchObject({
        approve: true,
        actor: "Ada",
        actorId: ada.id,
      });
      const audited = await harness.service.listAudit({ limit: 5, filter: { run: runId } });
      expect(audited.items).toEqual([
        expect.objectContaining({ actorId: ada.id, via: "link_alone", viaChannel: "alone" }),
      ]);
      const csv = await harness.service.exportAuditCsv({ run: runId });
      const [header, row] = csv.trim().split("\n");
      expect(header?.split(",").slice(-2)).toEqual(["via", "viaChannel"]);
      expect(row?.split(",").slice(-2)).toEqual(["link_alone", "alone"]);
      // A second use is refused, signed in or not.
      expect(await confirm(tokens.approve, null)).toMatchObject({
        ok: false,
        refusal: { code: "link_used" },
      });
    });

    it("is bound to one decision: the channel's setting, its recipient, its turn, its expiry", async () => {
      const { runId, turnDigest } = await waitingRun("alone, refused");
      // A channel that does not allow it asks to sign in.
      const mailed = await linksFor(runId, turnDigest);
      expect(await confirm(mailed.approve, null)).toMatchObject({
        ok: false,
        refusal: { code: "sign_in_required", status: 401 },
      });
      // Forwarded to someone else who is signed in: refused, though the link alone would decide.
      const alone = await linksFor(runId, turnDigest, { channel: "alone" });
      expect(await confirm(alone.approve, bo)).toMatchObject({
        ok: false,
        refusal: { code: "link_not_yours", status: 403 },
      });
      // Expired with its time.
      const later = new Date(Date.now() + 61 * 60_000);
      expect(await confirm(alone.approve, null, later)).toMatchObject({
        ok: false,
        refusal: { code: "link_expired", status: 410 },
      });
      // A recipient who may not decide (a viewer) gets nothing from the link alone.
      const vis = await linksFor(runId, turnDigest, { channel: "alone", userId: "u-vi" });
      expect(await open(vis.approve, null)).toMatchObject({
        ok: false,
        refusal: { code: "recipient_cannot_decide", status: 403 },
      });
      expect((await harness.service.getReport(runId))?.pending?.turnDigest).toBe(turnDigest);
      // A changed turn: refused with the turn waiting now.
      await harness.service.decide(runId, { approve: true, turnDigest, actor: "Ada", actorId: ada.id });
      await expect
        .poll(async () => (await harness.service.getReport(runId))?.pending?.turnDigest)
        .not.toBe(turnDigest);
      const current = (await harness.service.getReport(runId))?.pending;
      expect(await confirm(alone.deny, null)).toEqual({
        ok: false,
        refusal: { code: "stale_turn", status: 409, current, runId },
      });
    });
  });
});
