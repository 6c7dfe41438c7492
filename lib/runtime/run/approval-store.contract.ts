/**
 * The contract of a store's approvals seam (`ApprovalStore`): the append-only
 * audit, each decision announced in its write, grants, and the waits' deadlines.
 */
import { expect, it } from "vitest";
import type { ApprovalRecord } from "./approval-records";
import {
  DECISION_ID,
  decidedEvent,
  describeStoreSuite,
  gateRow,
  isLostClaim,
  METRICS,
  newRun,
  STATE,
  STEP,
  type StoreUnderTest,
  TURN,
  waitingRun,
} from "./run-store-fixtures.contract";

export function describeApprovalStoreContract(label: string, open: () => Promise<StoreUnderTest>) {
  describeStoreSuite(`ApprovalStore contract: ${label}`, open, (withStore) => {
    it("keeps every approval row in order, with who decided what and when, each decision announced in the same write", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const claimed = await store.claimWaitingRun(run.id, "holder", 60_000, "decision");
        expect(claimed).not.toBeNull();
        const announce = (approve: boolean, actor: string) => ({
          claimToken: "holder",
          event: decidedEvent({ approve, actor }),
        });
        expect(
          await store.recordApproval(
            [gateRow(run.id, { approve: false, actor: "bob", reason: "no" })],
            announce(false, "bob"),
          ),
        ).toBe(true);
        // One decision on two gates, the first edited: a row per gate, one decision id.
        const edited = { editedArguments: '{"path":"b.txt"}', editedDigest: "e".repeat(64) };
        expect(
          await store.recordApproval(
            [
              gateRow(run.id, {
                actor: "alice",
                actorId: "u-1",
                decisionId: DECISION_ID,
                scope: "turn",
                ...edited,
              }),
              gateRow(run.id, {
                actor: "alice",
                actorId: "u-1",
                decisionId: DECISION_ID,
                scope: "turn",
                batchIndex: 2,
                callId: "c2",
              }),
            ],
            announce(true, "alice"),
          ),
        ).toBe(true);
        const decided = (await store.readEvents(run.id, 0)).filter(
          (event) => event.type === "approval_decided",
        );
        expect(decided.map((event) => event.payload)).toMatchObject([{ actor: "bob" }, { actor: "alice" }]);
        // A holder that lost its claim neither audits nor announces.
        await expect(
          store.recordApproval([gateRow(run.id, { actor: "mallory" })], {
            ...announce(true, "m"),
            claimToken: "stale",
          }),
        ).rejects.toSatisfy(isLostClaim);
        const { runId: _, ...stored } = gateRow(run.id, {});
        expect(await store.listApprovals(run.id)).toEqual([
          { ...stored, approve: false, actor: "bob", reason: "no", decidedAt: expect.any(String) },
          {
            ...stored,
            actor: "alice",
            actorId: "u-1",
            decisionId: DECISION_ID,
            scope: "turn",
            ...edited,
            decidedAt: expect.any(String),
          },
          {
            ...stored,
            actor: "alice",
            actorId: "u-1",
            decisionId: DECISION_ID,
            scope: "turn",
            batchIndex: 2,
            callId: "c2",
            decidedAt: expect.any(String),
          },
        ]);
      }));

    it("keeps how a decision came through a decision link, and which channel sent it; a decision in the app says nothing of it", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.claimWaitingRun(run.id, "holder", 60_000, "decision")).not.toBeNull();
        const via = { kind: "link_alone" as const, channel: "mail" };
        expect(
          await store.recordApproval([gateRow(run.id, { actor: "alice", actorId: "u-1", via })], {
            claimToken: "holder",
            event: decidedEvent({ approve: true, actor: "alice" }),
          }),
        ).toBe(true);
        const other = await waitingRun(store);
        expect(await store.claimWaitingRun(other.id, "holder", 60_000, "decision")).not.toBeNull();
        expect(
          await store.recordApproval([gateRow(other.id, { actor: "bob" })], {
            claimToken: "holder",
            event: decidedEvent({ approve: true, actor: "bob" }),
          }),
        ).toBe(true);
        expect(await store.listApprovals(run.id)).toEqual([expect.objectContaining({ actor: "alice", via })]);
        expect((await store.listApprovals(other.id))[0]).not.toHaveProperty("via");
      }));

    it("claims a decision and records it in one write while the run is as it was read, and writes nothing once it changed", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const read = await store.getRun(run.id);
        if (!read) throw new Error("no run");
        const before = (await store.readEvents(run.id, 0)).length;
        const decision = {
          records: [gateRow(run.id, { actor: "alice" })],
          event: decidedEvent({ approve: true, actor: "alice" }),
          startBarrier: {
            resumed: { type: "run_resumed" as const, payload: { stepIndex: 0, action: "approve" as const } },
            batchIndex: 1,
          },
        };

        // Changed since it was read (claimed and released: the same turn, but not the same row).
        expect(await store.claimWaitingRun(run.id, "other", 60_000, "cancel")).not.toBeNull();
        expect(await store.claimAndRecordDecision(run.id, "late", 60_000, read.version, decision)).toBe(
          false,
        );
        const released = { type: "run_released" as const, payload: { stepIndex: 0, ...TURN, refusal: "x" } };
        expect(await store.releaseRun(run.id, "other", STATE, released)).toBe(true);
        const reread = await store.getRun(run.id);
        expect(reread?.version).not.toBe(read.version);
        const afterRelease = (await store.readEvents(run.id, 0)).length;
        expect(await store.claimAndRecordDecision(run.id, "stale", 60_000, read.version, decision)).toBe(
          false,
        );
        expect(await store.readEvents(run.id, 0)).toHaveLength(afterRelease);
        expect(await store.listApprovals(run.id)).toEqual([]);
        expect((await store.getRun(run.id))?.status).toBe("WAITING_FOR_APPROVAL");

        // An audit that refuses the decision's rows (here, a kind its table does not know) leaves nothing written.
        const refused = {
          ...decision,
          records: [gateRow(run.id, { kind: "bogus" as ApprovalRecord["kind"] })],
        };
        expect(
          await store.claimAndRecordDecision(run.id, "holder", 60_000, reread?.version ?? "", refused),
        ).toBe(false);
        expect(await store.readEvents(run.id, 0)).toHaveLength(afterRelease);
        expect((await store.getRun(run.id))?.version).toBe(reread?.version);

        // As read: claimed, audited, announced and started, in that order, in one write.
        expect(
          await store.claimAndRecordDecision(run.id, "holder", 60_000, reread?.version ?? "", decision),
        ).toBe(true);
        const events = (await store.readEvents(run.id, afterRelease)).map((event) => [
          event.type,
          event.payload,
        ]);
        expect(events).toEqual([
          ["run_claimed", { stepIndex: 0, turnDigest: TURN.turnDigest, purpose: "decision" }],
          ["approval_decided", expect.objectContaining({ actor: "alice" })],
          ["run_resumed", { stepIndex: 0, action: "approve" }],
          ["call_started", { stepIndex: 0, batchIndex: 1 }],
        ]);
        expect(before).toBeLessThan(afterRelease);
        expect(await store.listApprovals(run.id)).toMatchObject([{ actor: "alice", kind: "decision" }]);
        expect((await store.getRun(run.id))?.status).toBe("RUNNING");
        // The claim is held: another claim loses, and the holder settles the started call.
        expect(await store.claimWaitingRun(run.id, "another", 60_000, "decision")).toBeNull();
        expect(
          await store.settleCalls(run.id, "holder", 0, [
            { batchIndex: 1, outcome: { status: "ok", result: null, error: null } },
          ]),
        ).toHaveLength(1);
        // A run that is not waiting is not claimed again.
        const now = await store.getRun(run.id);
        expect(
          await store.claimAndRecordDecision(run.id, "again", 60_000, now?.version ?? "", decision),
        ).toBe(false);
      }));

    it("starts an approved barrier in the audit's write, and neither when the claim is lost", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.claimWaitingRun(run.id, "holder", 60_000, "decision")).not.toBeNull();
        const before = (await store.readEvents(run.id, 0)).length;
        const approval = [gateRow(run.id, { actor: "alice" })];
        const announce = (claimToken: string) => ({
          claimToken,
          event: decidedEvent({ approve: true, actor: "alice" }),
          startBarrier: {
            resumed: { type: "run_resumed" as const, payload: { stepIndex: 0, action: "approve" as const } },
            batchIndex: 1,
          },
        });
        await expect(store.recordApproval(approval, announce("stale"))).rejects.toSatisfy(isLostClaim);
        expect(await store.recordApproval(approval, announce("holder"))).toBe(true);
        const events = (await store.readEvents(run.id, before)).map((event) => [
          event.seq - before,
          event.type,
          event.payload,
        ]);
        expect(events).toEqual([
          [1, "approval_decided", expect.objectContaining({ actor: "alice" })],
          [2, "run_resumed", { stepIndex: 0, action: "approve" }],
          [3, "call_started", { stepIndex: 0, batchIndex: 1 }],
        ]);
        expect(await store.listApprovals(run.id)).toHaveLength(1);
        // The started call settles like any other.
        expect(
          await store.settleCalls(run.id, "holder", 0, [
            { batchIndex: 1, outcome: { status: "ok", result: null, error: null } },
          ]),
        ).toEqual([before + 4]);
      }));

    it("grants a tool with an approval, audits each call it lets through as it starts, and revokes it", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.claimWaitingRun(run.id, "holder", 60_000, "decision")).not.toBeNull();
        const granting = decidedEvent({ approve: true, actor: "alice" });
        granting.payload.decisionId = DECISION_ID;
        granting.payload.allowTool = "write_file";
        expect(
          await store.recordApproval([gateRow(run.id, { decisionId: DECISION_ID })], {
            claimToken: "holder",
            event: granting,
          }),
        ).toBe(true);
        const grant = { decisionId: DECISION_ID, actor: "alice", actorId: null };
        expect((await store.getRun(run.id))?.allowedTools).toEqual({ write_file: grant });
        // A call the grant lets through is audited in the write that starts it, and only if it starts.
        const automatic = gateRow(run.id, {
          kind: "automatic",
          grantedBy: DECISION_ID,
          decisionId: "7a1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
        });
        await expect(
          store.startCalls(run.id, "stale", 0, [1], { wave: true, approvals: [automatic] }),
        ).rejects.toSatisfy(isLostClaim);
        await store.startCalls(run.id, "holder", 0, [1], { wave: true, approvals: [automatic] });
        const rows = await store.listApprovals(run.id);
        expect(rows.map((row) => [row.kind, row.grantedBy])).toEqual([
          ["decision", null],
          ["automatic", DECISION_ID],
        ]);
        expect((await store.finishStep(run.id, "holder", 0, METRICS)).allowedTools).toEqual({
          write_file: grant,
        });
        // Revoked whoever holds the run; the next step's finish says it is gone.
        expect(await store.revokeToolAllowance(run.id, "write_file", { actor: "bob", actorId: "u-2" })).toBe(
          true,
        );
        expect(await store.revokeToolAllowance(run.id, "write_file", { actor: "bob", actorId: "u-2" })).toBe(
          false,
        );
        expect((await store.finishStep(run.id, "holder", 0, METRICS)).allowedTools).toEqual({});
        const revoked = (await store.readEvents(run.id, 0)).filter(
          (event) => event.type === "tool_allowance_revoked",
        );
        expect(revoked.map((event) => event.payload)).toEqual([
          { toolName: "write_file", actor: "bob", actorId: "u-2" },
        ]);
      }));

    it("keeps a wait's deadline: warns once in its last fifth, and lists it once it has passed", () =>
      withStore(async (store) => {
        const suspendedWith = async (expiresAt: string) => {
          const run = newRun();
          await store.createRun(run);
          await store.recordStep(run.id, run.claimToken, STEP, 1);
          await store.suspendRun(run.id, run.claimToken, { ...STATE, pending: { ...TURN, expiresAt } });
          return run.id;
        };
        const past = await suspendedWith(new Date(Date.now() - 1_000).toISOString());
        const later = await suspendedWith(new Date(Date.now() + 3_600_000).toISOString());
        const warnings = async (runId: string) =>
          (await store.readEvents(runId, 0)).filter((event) => event.type === "approval_expiring");
        expect(await store.announceExpiringWaits(1_000)).toBeGreaterThanOrEqual(1);
        await store.announceExpiringWaits(1_000);
        expect((await warnings(past)).map((event) => event.payload)).toEqual([
          { stepIndex: 0, turnDigest: TURN.turnDigest, expiresAt: expect.any(String) },
        ]);
        expect(await warnings(later)).toEqual([]);
        const expired = await store.listExpiredWaits(1_000);
        expect(expired).toContain(past);
        expect(expired).not.toContain(later);
        // A run taken up by a decision is not waiting: its deadline no longer counts.
        await store.claimWaitingRun(past, "holder", 60_000, "decision");
        expect(await store.listExpiredWaits(1_000)).not.toContain(past);
      }));
  });
}
