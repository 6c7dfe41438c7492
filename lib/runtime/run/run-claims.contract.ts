/** The contract of a store's claims and leases seam (`RunClaims`): one winner per claim, leases that run out. */
import { expect, it } from "vitest";
import {
  describeStoreSuite,
  isLostClaim,
  newRun,
  released,
  STATE,
  type StoreUnderTest,
  TURN,
  waitingRun,
} from "./run-store-fixtures.contract";

export function describeRunClaimsContract(label: string, open: () => Promise<StoreUnderTest>) {
  describeStoreSuite(`RunClaims contract: ${label}`, open, (withStore) => {
    it("renews a lease only for its holder, and lets any instance take over a run whose lease ran out", () =>
      withStore(async (store) => {
        const live = newRun({ leaseMs: 60_000 });
        const dead = newRun({ leaseMs: 1 });
        await store.createRun(live);
        await store.createRun(dead);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await store.getRun(live.id)).toMatchObject({ leaseExpired: false });
        expect(await store.getRun(dead.id)).toMatchObject({ leaseExpired: true });
        expect(await store.renewLease(live.id, live.claimToken, 60_000)).toBe(true);

        // Two sweeps at once: the expired run goes to exactly one of them, the live one to none.
        const [a, b] = await Promise.all([
          store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: dead.id }),
          store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: dead.id }),
        ]);
        const taken = [...a, ...b];
        expect(taken).toHaveLength(1);
        expect(taken[0]?.run).toMatchObject({ id: dead.id, status: "RUNNING", leaseExpired: false });
        expect(taken[0]?.claimToken).not.toBe(dead.claimToken);
        expect(await store.claimExpiredRuns({ leaseMs: 60_000, limit: 10, runId: live.id })).toEqual([]);

        // The old holder is fenced out; the new one writes.
        await expect(store.startCalls(dead.id, dead.claimToken, 0, [0], { wave: true })).rejects.toSatisfy(
          isLostClaim,
        );
        expect(await store.renewLease(dead.id, dead.claimToken, 60_000)).toBe(false);
        const newToken = taken[0]?.claimToken ?? "";
        await store.finishRun(dead.id, newToken, "CANCELLED", null);
        expect(await store.getRun(dead.id)).toMatchObject({ status: "CANCELLED", leaseExpired: false });
        expect(await store.claimExpiredRuns({ leaseMs: 1, limit: 10, runId: dead.id })).toEqual([]);
      }));

    it("lets exactly one of two claims take a waiting run; a release needs that claim's token", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const [first, second] = await Promise.all([
          store.claimWaitingRun(run.id, "claim-a", 60_000, "decision"),
          store.claimWaitingRun(run.id, "claim-b", 60_000, "decision"),
        ]);
        expect([first, second].filter(Boolean)).toHaveLength(1);
        expect(first ?? second).toMatchObject({ id: run.id, status: "RUNNING", state: STATE });
        // The claim is announced in the same write, with the claimed turn.
        const claimed = (await store.readEvents(run.id, 0)).filter((event) => event.type === "run_claimed");
        expect(claimed).toMatchObject([
          { payload: { stepIndex: 0, turnDigest: TURN.turnDigest, purpose: "decision" } },
        ]);
        const winner = first ? "claim-a" : "claim-b";
        const loser = first ? "claim-b" : "claim-a";
        expect(await store.releaseRun(run.id, loser, STATE, released)).toBe(false);
        expect(await store.releaseRun(run.id, winner, STATE, released)).toBe(true);
        expect(await store.getRun(run.id)).toMatchObject({ status: "WAITING_FOR_APPROVAL", state: STATE });
        expect((await store.readEvents(run.id, 0)).at(-1)).toMatchObject({
          type: "run_released",
          payload: { refusal: "stale_turn", turnDigest: TURN.turnDigest },
        });
        // Released, it can be claimed again; a run that is not waiting cannot.
        expect(await store.claimWaitingRun(run.id, "claim-c", 60_000, "cancel")).not.toBeNull();
        expect(await store.claimWaitingRun(run.id, "claim-d", 60_000, "decision")).toBeNull();
        const events = await store.readEvents(run.id, 0);
        expect(events.at(-1)).toMatchObject({ type: "run_claimed", payload: { purpose: "cancel" } });
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      }));
  });
}
