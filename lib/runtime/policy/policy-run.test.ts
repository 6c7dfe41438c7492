import { describe, expect, it } from "vitest";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { buildScenario } from "../testing/scenario-harness";
import type { ActivePolicy } from "./decide-call";
import { checkPolicy } from "./policy-document";
import type { PublishedPolicies } from "./policy-source";

function compile(version: number, text: string): ActivePolicy {
  const checked = checkPolicy(text);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return { version, policy: checked.policy };
}

const live = compile(
  4,
  `rules:
  - name: docs-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("docs/")
    effect: allow
  - name: no-deletes
    when: call.name == "delete_file"
    effect: deny
    message: Deleting files is not allowed; leave them.
`,
);
const shadow = compile(
  5,
  `rules:
  - name: all-writes
    when: call.name == "write_file"
    effect: allow
`,
);

const scenario = buildScenario({
  name: "policy at work",
  workspace: { "old.txt": "old" },
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { id: "docs", name: "write_file", arguments: { path: "docs/a.md", content: "a" } },
          { id: "del", name: "delete_file", arguments: { path: "old.txt" } },
        ],
      },
      { calls: [{ id: "src", name: "write_file", arguments: { path: "src/b.ts", content: "b" } }] },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
});

describe("a run under a live and a shadow policy", () => {
  it("allows, denies and gates as the live rules say; audits the version; records the shadow without deciding", async () => {
    const policies: PublishedPolicies = { live, shadow };
    const host = createMemoryRunHost({ policies: { current: async () => policies } });
    const { runId, settled } = await host.startRun(scenario);
    // The docs write ran ungated, the delete was settled with the rule's message, the src write waits.
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const view = await host.loadView(runId);
    const [first, second] = view?.steps ?? [];
    expect(first?.calls.map((call) => [call.id, call.status, call.error?.message ?? null])).toEqual([
      ["docs", "ok", null],
      [
        "del",
        "not_dispatched",
        'call 1 ("delete_file"): denied by policy rule "no-deletes": Deleting files is not allowed; leave them.',
      ],
    ]);
    // The shadow policy would have let the src write through: recorded, but it still waits.
    expect(second?.calls[0]).toMatchObject({
      id: "src",
      isGated: true,
      shadow: { version: 5, outcome: "allow", rule: "all-writes" },
    });
    // No shadow rule matches the delete: its declaration would have gated it (live denied it).
    expect(first?.calls[1]?.shadow).toEqual({ version: 5, outcome: "require", rule: null });
    // The automatic approval names the version and rule that decided.
    const approvals = await host.store.listApprovals(runId);
    expect(approvals).toEqual([
      expect.objectContaining({
        kind: "automatic",
        approve: true,
        callId: "docs",
        actor: "policy v4, rule docs-writes",
        actorId: null,
        policyVersion: 4,
        policyRule: "docs-writes",
      }),
    ]);
  });
});

describe("a path that climbs out of where a rule looks", () => {
  it('is refused as written ("docs/../a.txt" names "a.txt"): no rule allows it, nothing is written, nothing is approved', async () => {
    const host = createMemoryRunHost({ policies: { current: async () => ({ live, shadow: null }) } });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "climbing out of docs",
        workspace: { "a.txt": "original" },
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                {
                  id: "up",
                  name: "write_file",
                  arguments: { path: "docs/../a.txt", content: "overwritten" },
                },
              ],
            },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    expect(await settled).toBe("COMPLETED");
    const [first] = (await host.loadView(runId))?.steps ?? [];
    expect(first?.calls[0]).toMatchObject({
      id: "up",
      status: "not_dispatched",
      error: { code: "invalid_arguments" },
    });
    expect(first?.calls[0]?.error?.message).toContain('"a.txt"');
    expect(await host.store.listApprovals(runId)).toEqual([]);
    expect(host.toolContext(runId).workspace.snapshot()).toEqual({ "a.txt": "original" });
  });
});
