import { describe, expect, it } from "vitest";
import { planBatch } from "../planner/plan-batch";
import { createToolCallBatch, type ToolCallSketch } from "../testing";
import type { ToolDefinition } from "../tools/tool-definition";
import { createToolRegistry } from "../tools/tool-registry";
import { DEFAULT_LIMITS } from "../types";
import type { PlanPolicy } from "./apply-policy";
import { type ActivePolicy, decideCall } from "./decide-call";
import type { PolicyContext } from "./policy-context";
import { checkPolicy } from "./policy-document";

function compile(text: string, version: number | null = 7): ActivePolicy {
  const checked = checkPolicy(text);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return { version, policy: checked.policy };
}

/** A policy of one rule with this condition and effect. */
function oneRule(when: string, effect = "allow"): ActivePolicy {
  const extra = effect === "deny" ? "\n    message: no" : "";
  return compile(
    `rules:\n  - name: the-rule\n    when: ${JSON.stringify(when)}\n    effect: ${effect}${extra}\n`,
  );
}

const baseContext: PolicyContext = {
  call: {
    name: "write_file",
    arguments: { path: "docs/a.md", size: 3 },
    effect: "IDEMPOTENT_WRITE",
    resourceClass: "write",
    server: "github",
    trust: "trusted",
    fingerprint: "f".repeat(64),
  },
  run: { starter: "user-1", agent: "reviewer", metadata: { team: "docs" } },
  now: new Date("2026-03-02T10:30:00Z"),
  batch: { size: 2, tools: ["read_file", "write_file"] },
};

describe("what a rule sees", () => {
  const fields: [string, string][] = [
    ["call.name", 'call.name == "write_file"'],
    ["call.arguments", 'call.arguments.path.startsWith("docs/") && call.arguments.size == 3'],
    ["call.effect", 'call.effect == "IDEMPOTENT_WRITE"'],
    ["call.resourceClass", 'call.resourceClass == "write"'],
    ["call.server", 'call.server == "github"'],
    ["call.trust", 'call.trust == "trusted"'],
    ["call.fingerprint", "call.fingerprint.startsWith('fff')"],
    ["run.starter", 'run.starter == "user-1"'],
    ["run.agent", 'run.agent == "reviewer"'],
    ["run.metadata", 'run.metadata["team"] == "docs"'],
    ["now", 'now.getHours("UTC") == 10 && now.getDayOfWeek("UTC") == 1'],
    ["batch.size", "batch.size == 2"],
    ["batch.tools", '"read_file" in batch.tools'],
  ];
  it.each(fields)("%s: matches when true, not when the value differs", (field, when) => {
    const policy = oneRule(when);
    expect(decideCall(policy, baseContext)).toEqual({ effect: "allow", version: 7, rule: "the-rule" });
    const other: PolicyContext = {
      call: {
        name: "x",
        arguments: { path: "src/a.md", size: 4 },
        effect: "READ",
        resourceClass: "pure_read",
        server: "",
        trust: "",
        fingerprint: "",
      },
      run: { starter: "user-2", agent: "", metadata: { team: "ops" } },
      now: new Date("2026-03-03T22:00:00Z"),
      batch: { size: 1, tools: ["x"] },
    };
    expect(decideCall(policy, other), field).toBeNull();
  });
});

describe("effects and order", () => {
  const policy = compile(`
rules:
  - name: no-deletes
    when: call.name.startsWith("delete_")
    effect: deny
    message: Deleting is not allowed here.
  - name: docs-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("docs/")
    effect: require
    approvers: { people: [ana, bo, cy] }
    quorum: 2
  - name: writes
    when: call.name == "write_file"
    effect: allow
`);
  const withCall = (name: string, args: Record<string, unknown>): PolicyContext => ({
    ...baseContext,
    call: { ...baseContext.call, name, arguments: args },
  });

  it("deny gives the rule's message", () => {
    expect(decideCall(policy, withCall("delete_file", { path: "a" }))).toEqual({
      effect: "deny",
      version: 7,
      rule: "no-deletes",
      message: "Deleting is not allowed here.",
    });
  });
  it("require names who decides and the quorum; the first matching rule wins over a later one", () => {
    expect(decideCall(policy, withCall("write_file", { path: "docs/x" }))).toEqual({
      effect: "require",
      version: 7,
      rule: "docs-writes",
      approvers: { role: null, people: ["ana", "bo", "cy"], groups: [] },
      quorum: 2,
    });
  });
  it("allow when a later rule is the first to match", () => {
    expect(decideCall(policy, withCall("write_file", { path: "src/x" }))).toEqual({
      effect: "allow",
      version: 7,
      rule: "writes",
    });
  });
  it("no match: null, the declaration decides", () => {
    expect(decideCall(policy, withCall("read_file", { path: "a" }))).toBeNull();
  });
  it("a runtime error fails closed: gated, with the error", () => {
    const decision = decideCall(
      compile('rules:\n  - name: by-path\n    when: call.arguments.path == "a"\n    effect: allow\n'),
      withCall("list_files", {}),
    );
    expect(decision).toMatchObject({ effect: "require", rule: "by-path", quorum: 1 });
    expect(decision?.effect === "require" && decision.error).toMatch(/rule "by-path" failed: .*path/);
  });
});

describe("checked like code", () => {
  const problemsOf = (text: string) => {
    const checked = checkPolicy(text);
    return checked.ok ? [] : checked.problems.map(({ line, message }) => `${line}: ${message}`);
  };
  it("refuses a rule that does not compile, with its line", () => {
    expect(problemsOf("rules:\n  - name: a\n    when: call.name ==\n    effect: allow\n")).toEqual([
      expect.stringMatching(/^3: does not compile: /),
    ]);
  });
  it("refuses an unknown field of the call and an unknown variable", () => {
    expect(problemsOf('rules:\n  - name: a\n    when: call.tool == "x"\n    effect: allow\n')).toEqual([
      "3: does not compile: No such key: tool",
    ]);
    expect(problemsOf('rules:\n  - name: a\n    when: user == "x"\n    effect: allow\n')).toEqual([
      "3: does not compile: Unknown variable: user",
    ]);
  });
  it("refuses unknown fields of the document and of a rule", () => {
    expect(problemsOf("rule: []\nrules:\n  - name: a\n    efect: allow\n")).toEqual([
      "1: is not a known field (known: description, rules)",
      "3: must be one of allow, require, deny, got null",
      "4: is not a known field (known: name, when, effect, message, approvers, quorum)",
    ]);
  });
  it("refuses a condition that is not a boolean", () => {
    expect(problemsOf("rules:\n  - name: a\n    when: call.name\n    effect: allow\n")).toEqual([
      "3: must be a boolean, is string",
    ]);
  });
  it("refuses rules that can never match: constant false, after a catch-all, a repeated condition", () => {
    expect(
      problemsOf(`rules:
  - name: never
    when: 1 > 2
    effect: allow
  - name: same-a
    when: call.name == "x"
    effect: allow
  - name: same-b
    when: call.name=="x"
    effect: allow
  - name: all
    effect: allow
  - name: after-all
    when: call.name == "y"
    effect: allow
`),
    ).toEqual([
      "3: can never match: its condition is always false",
      '9: can never match: rule "same-a" before it has the same condition',
      '13: can never match: rule "all" before it matches every call',
    ]);
  });
  it("refuses a deny without message, a quorum no one can meet, invalid YAML", () => {
    expect(problemsOf("rules:\n  - name: a\n    effect: deny\n")).toEqual([
      "2: a deny rule needs a message (1 to 2000 characters): it is what the model is told",
    ]);
    expect(
      problemsOf("rules:\n  - name: a\n    effect: require\n    approvers: {people: [ana]}\n    quorum: 2\n"),
    ).toEqual(["5: asks for 2 approvers but names only 1 people: it could never be met"]);
    expect(problemsOf("rules: [\n")[0]).toMatch(/^\d+: is not valid YAML or JSON/);
  });
  it("accepts JSON, which is YAML", () => {
    expect(
      checkPolicy('{"rules": [{"name": "a", "when": "call.name == \\"x\\"", "effect": "allow"}]}').ok,
    ).toBe(true);
  });
});

describe("in the planner", () => {
  const mcpTool: ToolDefinition = {
    name: "github__delete_branch",
    description: "",
    parameters: { type: "object", properties: { branch: { type: "string" } } },
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "always",
    fingerprint: "a".repeat(64),
    origin: {
      kind: "mcp",
      server: "github",
      trust: "untrusted",
      serverToolName: "delete_branch",
      annotations: null,
      outputSchema: null,
      basis: "",
    },
    execute: async () => ({}),
  };
  const registry = createToolRegistry({ definitions: [mcpTool] });
  const policy: PlanPolicy = {
    active: compile(`rules:
  - name: docs-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("docs/")
    effect: allow
  - name: untrusted-deletes
    when: call.server == "github" && call.trust == "untrusted"
    effect: deny
    message: ask a person to delete branches
  - name: memory-needs-a-look
    when: call.name == "memory_set"
    effect: require
`),
    run: { starter: "u", agent: "", metadata: {} },
    now: new Date("2026-03-02T10:00:00Z"),
  };
  const plan = (sketches: ToolCallSketch[], withPolicy: PlanPolicy | null = policy) =>
    planBatch(createToolCallBatch(sketches), registry, DEFAULT_LIMITS, withPolicy ?? undefined);
  const write = (path: string): ToolCallSketch => ({ name: "write_file", arguments: { path, content: "x" } });

  it("an allowed write is no barrier; the declaration still gates the one no rule matches", () => {
    const planning = plan([
      write("docs/a.md"),
      write("src/b.ts"),
      { name: "read_file", arguments: { path: "a" } },
    ]);
    expect(planning.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0] },
        { kind: "barrier", batchIndex: 1 },
        { kind: "wave", batchIndexes: [2] },
      ],
      problems: [],
    });
    expect(planning.calls[0]?.policy).toEqual({ effect: "allow", version: 7, rule: "docs-writes" });
    expect(planning.calls[1]?.policy).toBeUndefined();
    expect(planning.calls[1]?.isGated).toBe(true);
  });
  it("require gates a call its declaration does not", () => {
    const planning = plan([{ name: "memory_set", arguments: { key: "k", value: "v" } }]);
    expect(planning.plan.segments).toEqual([{ kind: "barrier", batchIndex: 0 }]);
    expect(planning.calls[0]?.policy).toMatchObject({
      effect: "require",
      rule: "memory-needs-a-look",
      quorum: 1,
    });
  });
  it("a denied call is settled without running while a gated sibling still waits", () => {
    const planning = plan([
      { name: "github__delete_branch", arguments: { branch: "main" } },
      write("src/b.ts"),
    ]);
    expect(planning.plan).toEqual({
      kind: "execute",
      segments: [{ kind: "barrier", batchIndex: 1 }],
      problems: [
        {
          batchIndex: 0,
          code: "policy_denied",
          message:
            'call 0 ("github__delete_branch"): denied by policy rule "untrusted-deletes": ask a person to delete branches',
        },
      ],
    });
  });
  it("a denied call among ungated ones: the others run", () => {
    const planning = plan([
      { name: "github__delete_branch", arguments: { branch: "x" } },
      write("docs/a.md"),
    ]);
    expect(planning.plan.kind).toBe("execute");
    expect(planning.plan.segments).toEqual([{ kind: "wave", batchIndexes: [1] }]);
    expect(planning.plan.problems.map((problem) => problem.code)).toEqual(["policy_denied"]);
  });
  it("without a policy the declarations decide, as before", () => {
    const planning = plan([write("docs/a.md")], null);
    expect(planning.plan.segments).toEqual([{ kind: "barrier", batchIndex: 0 }]);
  });
});
