import { describe, expect, it } from "vitest";
import { NotRuleApproverError } from "../coordinator/decision-errors";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { buildScenario } from "../testing/scenario-harness";
import type { ActivePolicy } from "./decide-call";
import { checkPolicy } from "./policy-document";
import { describeApprovers, isNamedApprover } from "./who-may-decide";

function compile(version: number, text: string): ActivePolicy {
  const checked = checkPolicy(text);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return { version, policy: checked.policy };
}

const policy = compile(
  7,
  `rules:
  - name: src-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("src/")
    effect: require
    approvers: { role: admin, people: [ana@example.com] }
  - name: docs-writes
    when: call.name == "write_file"
    effect: require
`,
);

const scenario = (path: string) =>
  buildScenario({
    name: "who may decide",
    workspace: {},
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ id: "w", name: "write_file", arguments: { path, content: "x" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  });

const approver = (email: string, role = "approver") => ({ role, email, userId: `user-${email}` });

async function startWaiting(path: string) {
  const host = createMemoryRunHost({ policies: { current: async () => ({ live: policy, shadow: null }) } });
  const { runId, settled } = await host.startRun(scenario(path));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const pending = (await host.getReport(runId))?.pending;
  if (!pending) throw new Error("the run should wait");
  return { host, runId, pending };
}

describe("who may decide a gate a policy rule asks for", () => {
  it("refuses an approval and a denial from an approver the rule does not name, before anything is claimed or audited", async () => {
    const { host, runId, pending } = await startWaiting("src/a.ts");
    for (const approve of [true, false]) {
      const attempt = host.decide(runId, {
        approve,
        turnDigest: pending.turnDigest,
        actor: "Bo",
        actorId: "user-bo",
        decider: approver("bo@example.com"),
      });
      const error = await attempt.then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(NotRuleApproverError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: "not_rule_approver",
        rule: "src-writes",
        policyVersion: 7,
        pending,
        message: expect.stringContaining(
          'Policy rule "src-writes" (version 7) lets only an admin or ana@example.com decide',
        ),
      });
    }
    expect(await host.store.listApprovals(runId)).toEqual([]);
    expect((await host.getReport(runId))?.status).toBe("WAITING_FOR_APPROVAL");
    expect((await host.getReport(runId))?.pending).toEqual(pending);
  });

  it("lets a person the rule names decide, by e-mail in any case", async () => {
    const { host, runId, pending } = await startWaiting("src/a.ts");
    expect(
      await host.decide(runId, {
        approve: true,
        turnDigest: pending.turnDigest,
        actor: "Ana",
        actorId: "user-ana",
        decider: approver("Ana@Example.com"),
      }),
    ).toEqual({ outcome: "executed", status: "COMPLETED" });
  });

  it("lets the role the rule names decide, and any approver when the rule names nobody", async () => {
    const admin = await startWaiting("src/a.ts");
    expect(
      await admin.host.decide(admin.runId, {
        approve: true,
        turnDigest: admin.pending.turnDigest,
        actor: "Root",
        decider: approver("root@example.com", "admin"),
      }),
    ).toMatchObject({ outcome: "executed" });
    const docs = await startWaiting("docs/a.md");
    expect(
      await docs.host.decide(docs.runId, {
        approve: true,
        turnDigest: docs.pending.turnDigest,
        actor: "Bo",
        decider: approver("bo@example.com"),
      }),
    ).toMatchObject({ outcome: "executed" });
  });
});

describe("isNamedApprover", () => {
  it("matches a role by what it includes, people by e-mail or user id, and never by a group", () => {
    const approvers = { role: "approver" as const, people: [], groups: [] };
    expect(isNamedApprover(approvers, approver("a@x", "admin"))).toBe(true);
    expect(isNamedApprover(approvers, approver("a@x", "operator"))).toBe(false);
    expect(isNamedApprover({ ...approvers, role: "admin" }, approver("a@x"))).toBe(false);
    const people = { role: null, people: ["user-b@x"], groups: ["release"] };
    expect(isNamedApprover(people, approver("b@x"))).toBe(true);
    expect(isNamedApprover(people, approver("c@x"))).toBe(false);
    expect(describeApprovers(people)).toBe("user-b@x or a member of the group release");
  });
});
