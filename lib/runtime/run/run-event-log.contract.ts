/**
 * The contract of a store's run and event log seam (`RunEventLog`): gap-free
 * seqs, a change and its event in one write, fenced writes, and a run that
 * never ends past a call without an outcome.
 */
import { expect, it } from "vitest";
import { UnsettledCallsError } from "./run-errors";
import {
  describeStoreSuite,
  isLostClaim,
  LIMITS,
  METRICS,
  newRun,
  STATE,
  STEP,
  type StoreUnderTest,
  TURN,
  waitingRun,
} from "./run-store-fixtures.contract";
import type { SuspendedState } from "./suspended-state";

export function describeRunEventLogContract(label: string, open: () => Promise<StoreUnderTest>) {
  describeStoreSuite(`RunEventLog contract: ${label}`, open, (withStore) => {
    it("creates a claimed RUNNING run and announces it as event 1", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        expect(await store.getRun(run.id)).toEqual({
          id: run.id,
          status: "RUNNING",
          scenario: run.scenario,
          limits: LIMITS,
          modelCalls: 0,
          state: null,
          startedById: "user-1",
          leaseExpired: false,
          allowedTools: {},
          version: expect.any(String),
        });
        const events = await store.readEvents(run.id, 0);
        expect(events).toEqual([
          {
            seq: 1,
            type: "run_started",
            payload: {
              name: "contract",
              limits: LIMITS,
              startedBy: { id: "user-1", name: "Alice" },
              mcpServers: [],
              forkedFrom: null,
            },
            at: expect.any(String),
          },
        ]);
        expect(Number.isNaN(Date.parse(events[0]?.at ?? ""))).toBe(false);
      }));

    it("reads events a page at a time: at most `limit`, after `afterSeq`, in seq order", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        for (let stepIndex = 0; stepIndex < 4; stepIndex += 1) {
          await store.appendEvent(run.id, run.claimToken, {
            type: "wave_started",
            payload: { stepIndex, batchIndexes: [0] },
          });
        }
        const seqs = async (afterSeq: number, limit?: number) =>
          (await store.readEvents(run.id, afterSeq, limit)).map((event) => event.seq);
        expect(await seqs(0, 2)).toEqual([1, 2]);
        expect(await seqs(2, 2)).toEqual([3, 4]);
        expect(await seqs(4, 2)).toEqual([5]);
        expect(await seqs(5, 2)).toEqual([]);
        expect(await seqs(1)).toEqual([2, 3, 4, 5]);
      }));

    it("answers a run's latest event of the given types, whatever came after it, and null when it has none", () =>
      withStore(async (store) => {
        const { run, other } = await settledCallBesideAnotherRun(store);
        await store.appendEvent(run.id, run.claimToken, {
          type: "wave_started",
          payload: { stepIndex: 0, batchIndexes: [1] },
        });
        // The other run's event is later than all of them, and of a type asked for.
        await store.appendEvent(other.id, other.claimToken, {
          type: "wave_started",
          payload: { stepIndex: 3, batchIndexes: [0] },
        });
        const events = await store.readEvents(run.id, 0);
        expect(events.map((event) => event.type)).toEqual([
          "run_started",
          "step_planned",
          "wave_started",
          "call_started",
          "call_settled",
          "wave_started",
        ]);
        expect(await store.readLatestEvent(run.id, ["wave_started"])).toEqual(events[5]);
        expect(await store.readLatestEvent(run.id, ["step_planned", "call_started"])).toEqual(events[3]);
        expect(await store.readLatestEvent(run.id, ["run_started"])).toEqual(events[0]);
        expect(await store.readLatestEvent(run.id, ["run_finished", "awaiting_approval"])).toBeNull();
        expect(await store.readLatestEvent(run.id, [])).toBeNull();
        expect(await store.readLatestEvent(other.id, ["wave_started"])).toEqual(
          (await store.readEvents(other.id, 0))[1],
        );
        expect(await store.readLatestEvent(crypto.randomUUID(), ["run_started"])).toBeNull();
      }));

    it("knows nothing of an unknown run and refuses to append to it", () =>
      withStore(async (store) => {
        const unknown = crypto.randomUUID();
        expect(await store.getRun(unknown)).toBeNull();
        expect(await store.readEvents(unknown, 0)).toEqual([]);
        expect(await store.listApprovals(unknown)).toEqual([]);
        await expect(
          store.appendEvent(unknown, "any", {
            type: "wave_started",
            payload: { stepIndex: 0, batchIndexes: [0] },
          }),
        ).rejects.toThrow();
      }));

    it("numbers events 1, 2, 3… per run with no gap, and stamps call starts and settles with them", () =>
      withStore(async (store) => {
        const { run, other, started, settled } = await settledCallBesideAnotherRun(store);
        expect([started, settled]).toEqual([{ seqs: [4] }, [5]]);
        const events = await store.readEvents(run.id, 0);
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(events.map((event) => event.type)).toEqual([
          "run_started",
          "step_planned",
          "wave_started",
          "call_started",
          "call_settled",
        ]);
        expect((await store.readEvents(run.id, 3)).map((event) => event.seq)).toEqual([4, 5]);
        expect((await store.readEvents(other.id, 0)).map((event) => event.seq)).toEqual([1]);
        expect(events[4]).toMatchObject({
          payload: { stepIndex: 0, batchIndex: 0, status: "ok", result: { n: 1 }, error: null },
        });
      }));

    it("starts a wave's calls together and settles calls together, one seq each, in order", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        expect(await store.startCalls(run.id, run.claimToken, 0, [1, 0], { wave: true })).toEqual({
          seqs: [4, 5],
        });
        expect(
          await store.settleCalls(run.id, run.claimToken, 0, [
            { batchIndex: 0, outcome: { status: "ok", result: { a: 1 }, error: null } },
            { batchIndex: 1, outcome: { status: "error", result: null, error: { code: "x", message: "y" } } },
          ]),
        ).toEqual([6, 7]);
        const events = await store.readEvents(run.id, 2);
        expect(events.map((event) => [event.seq, event.type, event.payload])).toEqual([
          [3, "wave_started", { stepIndex: 0, batchIndexes: [1, 0] }],
          [4, "call_started", { stepIndex: 0, batchIndex: 1 }],
          [5, "call_started", { stepIndex: 0, batchIndex: 0 }],
          [6, "call_settled", { stepIndex: 0, batchIndex: 0, status: "ok", result: { a: 1 }, error: null }],
          [
            7,
            "call_settled",
            {
              stepIndex: 0,
              batchIndex: 1,
              status: "error",
              result: null,
              error: { code: "x", message: "y" },
            },
          ],
        ]);
      }));

    it("starts a lone call (an approved barrier) in the same write as the events that lead up to it", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        const resumed = {
          type: "run_resumed" as const,
          payload: { stepIndex: 0, action: "approve" as const },
        };
        expect(
          await store.startCalls(run.id, run.claimToken, 0, [1], { wave: false, first: [resumed] }),
        ).toEqual({
          seqs: [4],
        });
        const events = await store.readEvents(run.id, 2);
        expect(events.map((event) => [event.seq, event.type])).toEqual([
          [3, "run_resumed"],
          [4, "call_started"],
        ]);
      }));

    it("starts no wave while a cancel is pending, says which, and leaves it to be taken", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        const before = await store.readEvents(run.id, 0);
        expect(await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true })).toEqual({
          cancelPending: "turn",
        });
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        // A single call that is not a wave (an approved barrier) starts regardless.
        expect(await store.startCalls(run.id, run.claimToken, 0, [1], { wave: false })).toEqual({
          seqs: [3],
        });
        expect(await store.finishStep(run.id, run.claimToken, 0, METRICS)).toEqual({
          cancelPending: "turn",
          allowedTools: {},
        });
        expect(await store.takeCancelRequest(run.id, run.claimToken)).toBe("turn");
        expect(await store.finishStep(run.id, run.claimToken, 0, METRICS)).toEqual({
          cancelPending: null,
          allowedTools: {},
        });
      }));

    it("records a step with its calls and completion count, announced as step_planned", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 3);
        expect((await store.getRun(run.id))?.modelCalls).toBe(3);
        const [, planned] = await store.readEvents(run.id, 0);
        expect(planned).toMatchObject({
          type: "step_planned",
          payload: {
            stepIndex: 0,
            modelCalls: 3,
            text: "two calls",
            plan: STEP.plan,
            metrics: METRICS,
            calls: [
              {
                batchIndex: 0,
                id: "c0",
                name: "read_file",
                arguments: '{"path":"a.txt"}',
                status: "pending",
              },
              { batchIndex: 1, id: "c1", name: "write_file", isGated: true, status: "pending" },
            ],
          },
        });
        await store.invalidateCalls(
          run.id,
          run.claimToken,
          0,
          [
            {
              batchIndex: 1,
              outcome: { status: "invalidated", result: null, error: { code: "x", message: "y" } },
            },
          ],
          "turn_cancelled",
        );
        await store.finishStep(run.id, run.claimToken, 0, { ...METRICS, invalidatedCount: 1 });
        const [invalidated, finished] = await store.readEvents(run.id, 2);
        expect(invalidated).toMatchObject({
          type: "calls_invalidated",
          payload: { reason: "turn_cancelled", calls: [{ batchIndex: 1, status: "invalidated" }] },
        });
        expect(finished).toMatchObject({
          type: "step_finished",
          payload: { metrics: { invalidatedCount: 1 } },
        });
      }));

    it("suspends with the state and announces the pending turn; the claim is gone", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.getRun(run.id)).toMatchObject({ status: "WAITING_FOR_APPROVAL", state: STATE });
        const last = (await store.readEvents(run.id, 0)).at(-1);
        expect(last).toMatchObject({ type: "awaiting_approval", payload: { stepIndex: 0, ...TURN } });
        // The old holder is fenced out of every claimed write.
        await expect(store.finishRun(run.id, run.claimToken, "COMPLETED", null)).rejects.toSatisfy(
          isLostClaim,
        );
      }));

    it("fences writes by the claim token: a stale holder changes nothing and appends nothing", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        const before = await store.readEvents(run.id, 0);
        const stale = "not-the-token";
        const writes: Array<() => Promise<unknown>> = [
          () =>
            store.appendEvent(run.id, stale, {
              type: "wave_started",
              payload: { stepIndex: 0, batchIndexes: [0] },
            }),
          () => store.recordStep(run.id, stale, { ...STEP, index: 1 }, 2),
          () => store.startCalls(run.id, stale, 0, [0], { wave: true }),
          () => store.startCalls(run.id, stale, 0, [1], { wave: false }),
          () =>
            store.settleCalls(run.id, stale, 0, [
              { batchIndex: 0, outcome: { status: "ok", result: null, error: null } },
            ]),
          () =>
            store.invalidateCalls(
              run.id,
              stale,
              0,
              [{ batchIndex: 1, outcome: { status: "invalidated", result: null, error: null } }],
              "x",
            ),
          () => store.finishStep(run.id, stale, 0, METRICS),
        ];
        for (const write of writes) await expect(write()).rejects.toSatisfy(isLostClaim);
        await expect(store.suspendRun(run.id, "not-the-token", STATE)).rejects.toSatisfy(isLostClaim);
        await expect(store.finishRun(run.id, "not-the-token", "COMPLETED", null)).rejects.toSatisfy(
          isLostClaim,
        );
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        expect(await store.getRun(run.id)).toMatchObject({ status: "RUNNING", modelCalls: 1 });
        expect(await store.renewLease(run.id, stale, 60_000)).toBe(false);
      }));

    it("finishes a run for its holder: final status, error, state cleared, run_finished", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.finishRun(run.id, run.claimToken, "FAILED", { code: "boom", message: "it broke" });
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED", state: null });
        expect((await store.readEvents(run.id, 0)).at(-1)).toMatchObject({
          type: "run_finished",
          payload: { status: "FAILED", error: { code: "boom", message: "it broke" } },
        });
      }));

    it("refuses to end a run while a call it started has no stored outcome, writing nothing", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
        const before = await store.readEvents(run.id, 0);
        for (const status of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
          const refusal = await store.finishRun(run.id, run.claimToken, status, null).then(
            () => null,
            (error: unknown) => error,
          );
          expect(UnsettledCallsError.isInstance(refusal)).toBe(true);
          expect((refusal as UnsettledCallsError).calls).toEqual(["0:0"]);
        }
        expect(await store.getRun(run.id)).toMatchObject({ status: "RUNNING" });
        expect(await store.readEvents(run.id, 0)).toEqual(before);
        // A stale holder is told it lost the claim, whatever is running.
        await expect(store.finishRun(run.id, "stale", "COMPLETED", null)).rejects.toSatisfy(isLostClaim);
        // Once the outcome is stored the run may end.
        await store.settleCalls(run.id, run.claimToken, 0, [
          { batchIndex: 0, outcome: { status: "ok", result: { content: "A" }, error: null } },
        ]);
        await store.finishRun(run.id, run.claimToken, "COMPLETED", null);
        expect(await store.getRun(run.id)).toMatchObject({ status: "COMPLETED" });
      }));

    it("force-fails a run with a call still running by settling that call interrupted in the same write", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        await store.recordStep(run.id, run.claimToken, STEP, 1);
        await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
        expect(await store.forceFail(run.id, { code: "unreadable_state", message: "m" })).toBe(true);
        const events = await store.readEvents(run.id, 0);
        expect(events.slice(-2)).toMatchObject([
          {
            type: "call_settled",
            payload: { stepIndex: 0, batchIndex: 0, status: "error", error: { code: "interrupted" } },
          },
          { type: "run_finished", payload: { status: "FAILED", error: { code: "unreadable_state" } } },
        ]);
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED" });
      }));

    it("force-fails a running or waiting run whoever holds it, keeping the state; never a finished one", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        expect(await store.forceFail(run.id, { code: "release_failed", message: "m" })).toBe(true);
        expect(await store.getRun(run.id)).toMatchObject({ status: "FAILED", state: STATE });
        expect(await store.forceFail(run.id, { code: "again", message: "m" })).toBe(false);
        const finished = (await store.readEvents(run.id, 0)).filter((event) => event.type === "run_finished");
        expect(finished).toHaveLength(1);
      }));

    it("keeps a cancel request of a running run until it is taken, never weakening run to turn", () =>
      withStore(async (store) => {
        const run = newRun();
        await store.createRun(run);
        const take = () => store.takeCancelRequest(run.id, run.claimToken);
        expect(await take()).toBeNull();
        expect(await store.requestCancel(run.id, "run")).toBe(true);
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        // Only the holder takes it.
        await expect(store.takeCancelRequest(run.id, "not-the-token")).rejects.toSatisfy(isLostClaim);
        expect(await take()).toBe("run");
        expect(await take()).toBeNull();
        expect(await store.requestCancel(run.id, "turn")).toBe(true);
        expect(await take()).toBe("turn");
        await store.finishRun(run.id, run.claimToken, "COMPLETED", null);
        expect(await store.requestCancel(run.id, "run")).toBe(false);
      }));

    it("stores copies: changing what was passed in or read out changes nothing stored", () =>
      withStore(async (store) => {
        const run = await waitingRun(store);
        const read = await store.getRun(run.id);
        if (!read) throw new Error("the run was not stored");
        (read.state as SuspendedState).pending.turnDigest = "changed";
        const [first] = await store.readEvents(run.id, 0);
        if (first?.type !== "run_started") throw new Error("the first event is not run_started");
        first.payload.name = "changed";
        expect((await store.getRun(run.id))?.state).toEqual(STATE);
        expect((await store.readEvents(run.id, 0))[0]?.payload).toMatchObject({ name: "contract" });
      }));
  });
}

/**
 * A run whose step's one call has started and settled (events 1–5), beside another run that has
 * only started (event 1): what the event log's numbering and its reads are checked against.
 */
async function settledCallBesideAnotherRun(store: StoreUnderTest["store"]) {
  const run = newRun();
  const other = newRun();
  await store.createRun(run);
  await store.createRun(other);
  await store.recordStep(run.id, run.claimToken, STEP, 1);
  const started = await store.startCalls(run.id, run.claimToken, 0, [0], { wave: true });
  const settled = await store.settleCalls(run.id, run.claimToken, 0, [
    { batchIndex: 0, outcome: { status: "ok", result: { n: 1 }, error: null } },
  ]);
  return { run, other, started, settled };
}
