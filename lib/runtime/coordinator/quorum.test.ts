import { describe, expect, it } from "vitest";
import type { ActivePolicy } from "../policy/decide-call";
import { checkPolicy } from "../policy/policy-document";
import type { PendingTurn } from "../run/run-types";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { buildScenario } from "../testing/scenario-harness";
import type { Decision } from "./decision";
import {
  AlreadyApprovedError,
  InvalidDecisionError,
  NotRuleApproverError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "./decision-errors";

function compile(version: number, text: string): ActivePolicy {
  const checked = checkPolicy(text);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return { version, policy: checked.policy };
}

/** Writes under src/ need two of ana, bo and cy. */
const TWO_OF_THREE = compile(
  3,
  `rules:
  - name: src-two-people
    when: call.name == "write_file" && call.arguments.path.startsWith("src/")
    effect: require
    approvers: { people: [ana@example.com, bo@example.com, cy@example.com] }
    quorum: 2
`,
);

const scenario = buildScenario({
  name: "two people",
  workspace: {},
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { id: "w", name: "write_file", arguments: { path: "src/a.ts", content: "first" } },
          { id: "r", name: "read_file", arguments: { path: "src/a.ts" } },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
});

const PEOPLE = {
  ana: { name: "Ana", id: "user-ana", email: "ana@example.com" },
  bo: { name: "Bo", id: "user-bo", email: "bo@example.com" },
  cy: { name: "Cy", id: "user-cy", email: "cy@example.com" },
  dee: { name: "Dee", id: "user-dee", email: "dee@example.com" },
};
type Person = (typeof PEOPLE)[keyof typeof PEOPLE];

function by(person: Person, pending: PendingTurn, more: Partial<Decision> = {}): Decision {
  return {
    approve: true,
    turnDigest: pending.turnDigest,
    actor: person.name,
    actorId: person.id,
    decider: { role: "approver", email: person.email, userId: person.id },
    ...more,
  };
}

async function refusalOf(attempt: Promise<unknown>): Promise<unknown> {
  return attempt.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function openHost(
  options: { requireDistinctApprover?: boolean; store?: ReturnType<typeof createMemoryRunStore> } = {},
) {
  return createMemoryRunHost({
    ...options,
    policies: { current: async () => ({ live: TWO_OF_THREE, shadow: null }) },
  });
}

async function startWaiting(host = openHost(), starter?: { id: string; name: string }) {
  const { runId, settled } = await host.startRun(scenario, starter);
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const pending = (await host.getReport(runId))?.pending;
  if (!pending) throw new Error("the run should wait");
  return { host, runId, pending };
}

async function rowsOf(host: ReturnType<typeof openHost>, runId: string) {
  return (await host.store.listApprovals(runId)).map(
    ({ kind, actor, approve, turnDigest, editedArguments }) => ({
      kind,
      actor,
      approve,
      turnDigest,
      editedArguments,
    }),
  );
}

describe("a gate that needs two of three approvers", () => {
  it("waits after the first approval, showing 1 of 2 and who, and runs on the second, once", async () => {
    const { host, runId, pending } = await startWaiting();
    expect(pending.quorum).toBe(2);

    expect(await host.decide(runId, by(PEOPLE.ana, pending))).toEqual({
      outcome: "counted",
      status: "WAITING_FOR_APPROVAL",
    });
    const view = await host.loadView(runId);
    expect(view?.status).toBe("WAITING_FOR_APPROVAL");
    expect(view?.pending).toMatchObject({
      turnDigest: pending.turnDigest,
      quorum: 2,
      approvals: [{ actor: "Ana", actorId: "user-ana" }],
    });
    expect(await rowsOf(host, runId)).toEqual([
      { kind: "partial", actor: "Ana", approve: true, turnDigest: pending.turnDigest, editedArguments: null },
    ]);

    expect(await host.decide(runId, by(PEOPLE.bo, pending))).toEqual({
      outcome: "executed",
      status: "COMPLETED",
    });
    expect(await rowsOf(host, runId)).toEqual([
      { kind: "partial", actor: "Ana", approve: true, turnDigest: pending.turnDigest, editedArguments: null },
      { kind: "decision", actor: "Bo", approve: true, turnDigest: pending.turnDigest, editedArguments: null },
    ]);
    const events = await host.readEvents(runId, 0);
    expect(events.filter((event) => event.type === "approval_counted")).toHaveLength(1);
    expect(events.filter((event) => event.type === "approval_decided")).toHaveLength(1);
    expect(
      events.filter(
        (event) =>
          event.type === "call_started" && event.payload.stepIndex === 0 && event.payload.batchIndex === 0,
      ),
    ).toHaveLength(1);
    const report = await host.getReport(runId);
    expect(report?.decisions.map((decision) => [decision.kind, decision.outcome, decision.actor])).toEqual([
      ["partial", "counted", "Ana"],
      ["decision", "executed", "Bo"],
    ]);
  });

  it("ends at one denial after one approval", async () => {
    const { host, runId, pending } = await startWaiting();
    await host.decide(runId, by(PEOPLE.ana, pending));
    expect(
      await host.decide(runId, by(PEOPLE.bo, pending, { approve: false, reason: "not now" })),
    ).toMatchObject({
      outcome: "denied",
    });
    expect((await rowsOf(host, runId)).map((row) => [row.kind, row.actor, row.approve])).toEqual([
      ["partial", "Ana", true],
      ["decision", "Bo", false],
    ]);
    const report = await host.getReport(runId);
    expect(report?.steps[0]?.calls[0]?.status).toBe("denied");
  });

  it("restarts the count at an edit, with the new digest; the old turn can no longer be approved", async () => {
    const { host, runId, pending } = await startWaiting();
    await host.decide(runId, by(PEOPLE.ana, pending));
    const edited = { path: "src/a.ts", content: "edited" };
    expect(await host.decide(runId, by(PEOPLE.bo, pending, { editedArguments: edited }))).toEqual({
      outcome: "counted",
      status: "WAITING_FOR_APPROVAL",
    });
    const next = (await host.getReport(runId))?.pending;
    if (!next) throw new Error("the run should still wait");
    expect(next.turnDigest).not.toBe(pending.turnDigest);
    expect(JSON.parse(next.calls[0]?.arguments ?? "{}")).toEqual(edited);
    expect(next.approvals).toEqual([{ actor: "Bo", actorId: "user-bo", decisionId: expect.any(String) }]);
    expect((await host.loadView(runId))?.pending).toMatchObject({
      turnDigest: next.turnDigest,
      approvals: [{ actor: "Bo" }],
    });

    // Cy still has the old turn: refused as stale, nothing counted.
    const stale = await refusalOf(host.decide(runId, by(PEOPLE.cy, pending)));
    expect(StaleApprovalTurnError.isInstance(stale)).toBe(true);
    // Ana approved the old turn only: her approval of the new one is the second, and it runs as edited.
    expect(await host.decide(runId, by(PEOPLE.ana, next))).toEqual({
      outcome: "executed",
      status: "COMPLETED",
    });
    const report = await host.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({
      status: "ok",
      editedArguments: JSON.stringify({ content: "edited", path: "src/a.ts" }),
    });
    expect(report?.steps[0]?.calls[1]).toMatchObject({ status: "ok", result: { content: "edited" } });
    expect(
      (await rowsOf(host, runId)).map((row) => [row.kind, row.actor, row.turnDigest === pending.turnDigest]),
    ).toEqual([
      ["partial", "Ana", true],
      ["partial", "Bo", true],
      ["decision", "Ana", false],
    ]);
  });

  it("does not count the same person twice: 409 already_approved, nothing written", async () => {
    const { host, runId, pending } = await startWaiting();
    await host.decide(runId, by(PEOPLE.ana, pending));
    const events = (await host.readEvents(runId, 0)).length;
    const twice = await refusalOf(host.decide(runId, by(PEOPLE.ana, pending)));
    expect(AlreadyApprovedError.isInstance(twice)).toBe(true);
    expect(twice).toMatchObject({ code: "already_approved", pending: { approvals: [{ actor: "Ana" }] } });
    expect((await host.readEvents(runId, 0)).length).toBe(events);
    expect(await rowsOf(host, runId)).toHaveLength(1);
    expect((await host.getReport(runId))?.status).toBe("WAITING_FOR_APPROVAL");
  });

  it("refuses a whole-turn approval and a grant: one person cannot approve what needs two", async () => {
    const { host, runId, pending } = await startWaiting();
    for (const more of [{ alwaysAllow: true }, { scope: "turn" }] as const) {
      const refused = await refusalOf(host.decide(runId, by(PEOPLE.ana, pending, more)));
      expect(InvalidDecisionError.isInstance(refused)).toBe(true);
    }
    expect(await rowsOf(host, runId)).toEqual([]);
  });

  it("two approvals racing on two instances: one is counted, the other completes the quorum, the barrier runs once", async () => {
    const store = createMemoryRunStore();
    const first = openHost({ store });
    const second = openHost({ store });
    const { runId, pending } = await startWaiting(first);
    const results = await Promise.all([
      first.decide(runId, by(PEOPLE.ana, pending)),
      second.decide(runId, by(PEOPLE.bo, pending)),
    ]);
    expect(results.map((result) => result.outcome).sort()).toEqual(["counted", "executed"]);
    const events = await first.readEvents(runId, 0);
    expect(events.filter((event) => event.type === "approval_decided")).toHaveLength(1);
    expect(
      events.filter(
        (event) =>
          event.type === "call_started" && event.payload.stepIndex === 0 && event.payload.batchIndex === 0,
      ),
    ).toHaveLength(1);
    expect((await first.getReport(runId))?.status).toBe("COMPLETED");
  });

  it("applies separation of duties to each approver: the starter's approval is refused even as the second", async () => {
    const host = openHost({ requireDistinctApprover: true });
    const { runId, pending } = await startWaiting(host, { id: PEOPLE.cy.id, name: PEOPLE.cy.name });
    await host.decide(runId, by(PEOPLE.ana, pending));
    const own = await refusalOf(host.decide(runId, by(PEOPLE.cy, pending)));
    expect(SelfApprovalError.isInstance(own)).toBe(true);
    expect(await rowsOf(host, runId)).toHaveLength(1);
    expect(await host.decide(runId, by(PEOPLE.bo, pending))).toMatchObject({ outcome: "executed" });
  });

  it("refuses a decider the rule does not name, before counting anything", async () => {
    const { host, runId, pending } = await startWaiting();
    const outsider = await refusalOf(host.decide(runId, by(PEOPLE.dee, pending)));
    expect(NotRuleApproverError.isInstance(outsider)).toBe(true);
    expect(outsider).toMatchObject({ code: "not_rule_approver", rule: "src-two-people", policyVersion: 3 });
    expect(await rowsOf(host, runId)).toEqual([]);
  });

  it("an approval checked against a row read before another was counted completes the quorum: the stale count is refused by the row's version", async () => {
    const { host, runId, pending } = await startWaiting();
    const other = openHost({ store: host.store }); // another instance, its own memory
    await other.getRun(runId); // its page read the run with no approval counted
    expect(await host.decide(runId, by(PEOPLE.ana, pending))).toMatchObject({ outcome: "counted" });
    // On the remembered row Bo's approval would be the first: counted only. The row has changed, so
    // that count is refused, and the fresh read finds Ana's: Bo's completes the quorum.
    expect(await other.decide(runId, by(PEOPLE.bo, pending))).toEqual({
      outcome: "executed",
      status: "COMPLETED",
    });
    expect((await rowsOf(host, runId)).map(({ kind, actor }) => ({ kind, actor }))).toEqual([
      { kind: "partial", actor: "Ana" },
      { kind: "decision", actor: "Bo" },
    ]);
  });
});
