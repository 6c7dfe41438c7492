import { describe, expect, it } from "vitest";
import type { InboxItem } from "@/lib/wire/inbox-item";
import { describeOutcome, holdDecidedRows } from "./hold-decided-rows";

const item = (runId: string, gates: number[] = [0], stepIndex = 0): InboxItem => ({
  runId,
  name: `run ${runId}`,
  startedBy: null,
  waitingSince: "2026-11-30T08:00:00.000Z",
  stepIndex,
  pending: {
    turnDigest: `${runId}-${gates.join(",")}`,
    gates,
    calls: gates.map((batchIndex) => ({
      id: `c${batchIndex}`,
      name: "write_file",
      arguments: "{}",
      batchIndex,
    })),
  },
  barrierRule: null,
  unreadable: null,
});

const ids = (rows: ReturnType<typeof holdDecidedRows>) => rows.map((row) => row.item.runId);

describe("a decided inbox row stays where it was for a moment", () => {
  it("keeps a run that came back on its next gate in its old place, with the new turn and the outcome", () => {
    const decided = item("b", [0, 2]);
    const back = item("b", [2]);
    // Live order after the decision: b is newest again, at the top.
    const rows = holdDecidedRows(
      [back, item("a"), item("c")],
      [{ item: decided, index: 1, decided: { approve: true }, confirmed: true, until: 2000 }],
      1000,
    );
    expect(ids(rows)).toEqual(["a", "b", "c"]);
    expect(rows[1]).toEqual({
      item: back,
      outcome: "Approved gate 1 of 2 — now waiting on gate 2",
      isSettled: false,
    });
  });

  it("keeps a run that left the list as a settled row, then lets it go", () => {
    const held = [{ item: item("b"), index: 1, decided: { approve: true }, confirmed: true, until: 2000 }];
    const during = holdDecidedRows([item("a"), item("c")], held, 1999);
    expect(ids(during)).toEqual(["a", "b", "c"]);
    expect(during[1]).toMatchObject({ isSettled: true, outcome: "Approved: the run goes on" });
    expect(ids(holdDecidedRows([item("a"), item("c")], held, 2000))).toEqual(["a", "c"]);
  });

  it("offers nothing to decide while the live list still shows the turn just decided", () => {
    const decided = item("b", [0, 2]);
    const held = [{ item: decided, index: 0, decided: { approve: true }, confirmed: true, until: 2000 }];
    const stale = holdDecidedRows([decided], held, 1000);
    expect(stale[0]).toEqual({ item: decided, outcome: "Approved gate 1 of 2", isSettled: true });
    const caughtUp = holdDecidedRows([item("b", [2])], held, 1000);
    expect(caughtUp[0]).toMatchObject({
      isSettled: false,
      outcome: "Approved gate 1 of 2 — now waiting on gate 2",
    });
  });

  it("holds a row in place while its decision is on its way, without an outcome yet", () => {
    const sending = [
      { item: item("b", [0, 2]), index: 1, decided: { approve: true }, confirmed: false, until: 9000 },
    ];
    const rows = holdDecidedRows([item("b", [2]), item("a")], sending, 1000);
    expect(ids(rows)).toEqual(["a", "b"]);
    expect(rows[1]?.outcome).toBeNull();
  });

  it("puts a held row at the end when the list got shorter than its place", () => {
    const rows = holdDecidedRows(
      [],
      [{ item: item("z"), index: 5, decided: { approve: false }, confirmed: true, until: 10 }],
      0,
    );
    expect(ids(rows)).toEqual(["z"]);
  });

  it("says what the decision did: the gate approved and the one it waits on now", () => {
    expect(describeOutcome({ approve: true }, item("b", [0, 2]), item("b", [2]))).toBe(
      "Approved gate 1 of 2 — now waiting on gate 2",
    );
    expect(describeOutcome({ approve: true }, item("b"), undefined)).toBe("Approved: the run goes on");
    expect(describeOutcome({ approve: true, scope: "turn" }, item("b", [0, 2]), undefined)).toBe(
      "Approved: the run goes on",
    );
    expect(describeOutcome({ approve: false }, item("b"), undefined)).toBe(
      "Denied: the model gets your reply",
    );
  });

  it("says an approval toward a quorum it does not meet leaves the run waiting for the others", () => {
    const quorumOf = (approvals: string[]): InboxItem => {
      const base = item("q");
      if (!base.pending) throw new Error("the item waits");
      return {
        ...base,
        pending: {
          ...base.pending,
          quorum: 3,
          approvals: approvals.map((actor) => ({ actor, actorId: null, decisionId: `d-${actor}` })),
        },
      };
    };
    expect(describeOutcome({ approve: true }, quorumOf([]), undefined)).toBe(
      "Approved: 1 of 3 approvals, waiting for 2 more",
    );
    expect(describeOutcome({ approve: true }, quorumOf(["Ana"]), undefined)).toBe(
      "Approved: 2 of 3 approvals, waiting for 1 more",
    );
    expect(describeOutcome({ approve: true }, quorumOf(["Ana", "Bo"]), undefined)).toBe(
      "Approved: the run goes on",
    );
  });
});
