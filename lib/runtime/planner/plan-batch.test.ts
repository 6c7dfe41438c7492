import { describe, expect, it } from "vitest";
import { InvalidPlanInputError } from "../errors";
import { createToolCallBatch, type ToolCallSketch, transferTool } from "../testing";
import type { CustomToolDeclaration } from "../tools/custom-tool-declaration";
import { createToolRegistry, type ToolRegistryOptions } from "../tools/tool-registry";
import { DEFAULT_LIMITS, type Limits, type Plan, type ResourceClass } from "../types";
import { measureBatchPayloadBytes } from "./measure-batch-payload";
import { planBatch } from "./plan-batch";

function declareTool(
  name: string,
  resourceClass: ResourceClass,
  approval: "always" | "never" = "never",
): CustomToolDeclaration {
  return {
    name,
    description: name,
    resourceClass,
    effect: resourceClass === "write" ? "NON_IDEMPOTENT_WRITE" : "READ",
    approval,
    parameters: { type: "object", properties: {}, additionalProperties: false },
  };
}

const customTools = [
  declareTool("look_at_image", "vision"),
  declareTool("open_page", "browser"),
  declareTool("deploy", "write", "always"),
];

function planSketches(
  sketches: readonly ToolCallSketch[],
  limits: Partial<Limits> = {},
  registryOptions: ToolRegistryOptions = {},
): Plan {
  const registry = createToolRegistry({
    tools: customTools,
    definitions: [transferTool],
    ...registryOptions,
  });
  return planBatch(createToolCallBatch(sketches), registry, { ...DEFAULT_LIMITS, ...limits }).plan;
}

const read = (path = "a.txt"): ToolCallSketch => ({ name: "read_file", arguments: { path } });
const write = (path = "a.txt"): ToolCallSketch => ({ name: "write_file", arguments: { path, content: "x" } });
const reads = (count: number): ToolCallSketch[] =>
  Array.from({ length: count }, (_, index) => read(`f${index}.txt`));
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, index) => from + index);
const codesOf = (plan: Plan) => plan.problems.map((problem) => [problem.code, problem.batchIndex]);

describe("rule 1: oversized batch", () => {
  it("runs 14 reads at cap 8 as waves [0..7] and [8..13]", () => {
    expect(planSketches(reads(14), { maxParallelToolCalls: 8 })).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: range(0, 7) },
        { kind: "wave", batchIndexes: range(8, 13) },
      ],
      problems: [],
    });
  });

  it("runs 14 reads at cap 1 as 14 waves in order", () => {
    const plan = planSketches(reads(14), { maxParallelToolCalls: 1 });
    expect(plan.segments).toEqual(range(0, 13).map((index) => ({ kind: "wave", batchIndexes: [index] })));
  });

  it("runs exactly the cap in one wave", () => {
    const plan = planSketches(reads(8), { maxParallelToolCalls: 8 });
    expect(plan.segments).toEqual([{ kind: "wave", batchIndexes: range(0, 7) }]);
  });

  it("mixes every pure-read tool in its waves", () => {
    const sketches = [
      ...reads(3),
      { name: "list_files" },
      { name: "search_files", arguments: { query: "x" } },
    ];
    expect(planSketches(sketches, { maxParallelToolCalls: 2 }).segments).toEqual([
      { kind: "wave", batchIndexes: [0, 1] },
      { kind: "wave", batchIndexes: [2, 3] },
      { kind: "wave", batchIndexes: [4] },
    ]);
  });

  it("repairs when one read is schema-invalid", () => {
    const sketches = reads(9);
    sketches[4] = { name: "read_file", arguments: { file: "a.txt" } };
    const plan = planSketches(sketches, { maxParallelToolCalls: 8 });
    expect(plan.kind).toBe("repair");
    expect(plan.segments).toEqual([]);
    expect(codesOf(plan)).toEqual([
      ["too_many_calls", null],
      ["invalid_arguments", 4],
    ]);
    expect(plan.problems[0]?.message).toContain("9 tool calls");
    expect(plan.problems[0]?.message).toContain("at most 8");
  });

  it.each([
    ["vision", { name: "look_at_image" }, "not_pure_read"],
    ["memory", { name: "memory_get", arguments: { key: "k" } }, "not_pure_read"],
    ["tasks", { name: "task_create", arguments: { title: "t" } }, "not_pure_read"],
    ["browser", { name: "open_page" }, "not_pure_read"],
    ["terminal", { name: "finish", arguments: { summary: "s" } }, "terminal_in_oversized_batch"],
    ["unknown", { name: "frobnicate" }, "unknown_tool"],
    ["malformed", { name: "read_file", arguments: '{"path":' }, "malformed_arguments"],
  ] satisfies Array<[string, ToolCallSketch, string]>)(
    "repairs a %s call among pure reads",
    (_label, sketch, code) => {
      const sketches = reads(9);
      sketches[3] = sketch;
      const plan = planSketches(sketches, { maxParallelToolCalls: 8 });
      expect(plan).toMatchObject({ kind: "repair", segments: [] });
      expect(codesOf(plan)).toEqual([
        ["too_many_calls", null],
        [code, 3],
      ]);
    },
  );

  it("repairs an ungated write with not_pure_read naming its class", () => {
    const sketches = [...reads(8), write()];
    const plan = planSketches(sketches, { maxParallelToolCalls: 8 }, { approvals: { write_file: "never" } });
    expect(codesOf(plan)).toEqual([
      ["too_many_calls", null],
      ["not_pure_read", 8],
    ]);
    expect(plan.problems[1]?.message).toContain('"write"');
  });

  it("repairs [gated, pure_read, …] with a problem for the gate and for its class", () => {
    const plan = planSketches([write(), ...reads(8)], { maxParallelToolCalls: 8 });
    expect(plan).toMatchObject({ kind: "repair", segments: [] });
    expect(codesOf(plan)).toEqual([
      ["too_many_calls", null],
      ["approval_gated", 0],
      ["not_pure_read", 0],
    ]);
  });

  it("repairs a gated pure read in an oversized batch", () => {
    const plan = planSketches(reads(9), { maxParallelToolCalls: 8 }, { approvals: { read_file: "always" } });
    expect(plan.kind).toBe("repair");
    expect(plan.problems.filter((problem) => problem.code === "approval_gated")).toHaveLength(9);
  });

  it("also reports an oversized payload in an oversized repair", () => {
    const sketches = [
      ...reads(8),
      { name: "write_file", arguments: { path: "a", content: "x".repeat(500) } },
    ];
    const plan = planSketches(sketches, { maxParallelToolCalls: 8, maxBatchPayloadBytes: 400 });
    expect(codesOf(plan).slice(0, 2)).toEqual([
      ["too_many_calls", null],
      ["payload_too_large", null],
    ]);
  });

  it("lets rule 1a win over the payload limit (first match wins)", () => {
    const plan = planSketches(reads(9), { maxParallelToolCalls: 8, maxBatchPayloadBytes: 10 });
    expect(plan.kind).toBe("execute");
  });
});

describe("rule 2: oversized payload", () => {
  const sketches = [read(), { name: "write_file", arguments: { path: "b", content: "\u00e9".repeat(100) } }];
  const payloadBytes = measureBatchPayloadBytes(createToolCallBatch(sketches));

  it("counts UTF-8 bytes of the raw calls", () => {
    expect(payloadBytes).toBe(
      new TextEncoder().encode(
        JSON.stringify(
          createToolCallBatch(sketches).map(({ id, name, arguments: raw }) => ({ id, name, arguments: raw })),
        ),
      ).byteLength,
    );
    expect(payloadBytes).toBeGreaterThan(200);
  });

  it("repairs one byte over the limit, naming both numbers", () => {
    const plan = planSketches(sketches, { maxBatchPayloadBytes: payloadBytes - 1 });
    expect(plan).toEqual({
      kind: "repair",
      segments: [],
      problems: [
        {
          batchIndex: null,
          code: "payload_too_large",
          message: `the batch's tool calls take ${payloadBytes} bytes, more than the limit of ${payloadBytes - 1} bytes`,
        },
      ],
    });
  });

  it("accepts a payload exactly at the limit", () => {
    expect(planSketches(sketches, { maxBatchPayloadBytes: payloadBytes }).kind).toBe("execute");
  });
});

describe("rule 3: terminal call with siblings", () => {
  it("repairs a terminal call with a sibling, naming it", () => {
    const plan = planSketches([read(), { name: "finish", arguments: { summary: "done" } }]);
    expect(plan).toMatchObject({ kind: "repair", segments: [] });
    expect(codesOf(plan)).toEqual([["terminal_with_siblings", 1]]);
  });

  it("wins over a gated sibling and lists the siblings' own problems", () => {
    const plan = planSketches([
      { name: "reply", arguments: { message: "hi" } },
      write(),
      { name: "read_file", arguments: "{" },
    ]);
    expect(codesOf(plan)).toEqual([
      ["terminal_with_siblings", 0],
      ["malformed_arguments", 2],
    ]);
  });

  it("reports each terminal call of [reply, finish]", () => {
    const plan = planSketches([
      { name: "reply", arguments: { message: "hi" } },
      { name: "finish", arguments: { summary: "done" } },
    ]);
    expect(codesOf(plan)).toEqual([
      ["terminal_with_siblings", 0],
      ["terminal_with_siblings", 1],
    ]);
  });
});

describe("rule 4: approval-gated batch", () => {
  it("puts a first gate before the rest", () => {
    expect(planSketches([write(), read(), read()]).segments).toEqual([
      { kind: "barrier", batchIndex: 0 },
      { kind: "wave", batchIndexes: [1, 2] },
    ]);
  });

  it("runs the prefix, then a middle gate, then the rest", () => {
    expect(planSketches([read(), read(), write(), read()]).segments).toEqual([
      { kind: "wave", batchIndexes: [0, 1] },
      { kind: "barrier", batchIndex: 2 },
      { kind: "wave", batchIndexes: [3] },
    ]);
  });

  it("ends with a last gate", () => {
    expect(planSketches([read(), write()]).segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "barrier", batchIndex: 1 },
    ]);
  });

  it("alternates prefixes and several gates, adjacent gates included", () => {
    const plan = planSketches([
      write(),
      read(),
      { name: "delete_file", arguments: { path: "a" } },
      { name: "deploy" },
      read(),
      read(),
    ]);
    expect(plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "barrier", batchIndex: 0 },
        { kind: "wave", batchIndexes: [1] },
        { kind: "barrier", batchIndex: 2 },
        { kind: "barrier", batchIndex: 3 },
        { kind: "wave", batchIndexes: [4, 5] },
      ],
      problems: [],
    });
  });

  it("plans each prefix class-aware", () => {
    const sketches = [
      read(),
      { name: "memory_set", arguments: { key: "k", value: 1 } },
      read(),
      write(),
      { name: "look_at_image" },
      read(),
    ];
    expect(planSketches(sketches).segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "wave", batchIndexes: [1] },
      { kind: "wave", batchIndexes: [2] },
      { kind: "barrier", batchIndex: 3 },
      { kind: "wave", batchIndexes: [4, 5] },
    ]);
  });

  it.each([
    ["an invalid sibling", { name: "read_file", arguments: { path: 3 } }, "invalid_arguments"],
    ["an unknown sibling", { name: "frobnicate" }, "unknown_tool"],
    ["a malformed sibling", { name: "read_file", arguments: "nope" }, "malformed_arguments"],
  ] satisfies Array<[string, ToolCallSketch, string]>)(
    "repairs a gated batch with %s",
    (_label, sketch, code) => {
      const plan = planSketches([read(), write(), sketch]);
      expect(plan).toMatchObject({ kind: "repair", segments: [] });
      expect(codesOf(plan)).toEqual([[code, 2]]);
    },
  );

  it("repairs a gated batch whose gate itself is invalid", () => {
    expect(codesOf(planSketches([read(), { name: "write_file", arguments: { path: "a" } }]))).toEqual([
      ["invalid_arguments", 1],
    ]);
  });
});

describe("rule 5: terminal call alone", () => {
  it.each(["reply", "finish"])("runs a lone %s as one wave", (name) => {
    const argumentsByName: Record<string, Record<string, unknown>> = {
      reply: { message: "hi" },
      finish: { summary: "done" },
    };
    expect(planSketches([{ name, arguments: argumentsByName[name] }])).toEqual({
      kind: "execute",
      segments: [{ kind: "wave", batchIndexes: [0] }],
      problems: [],
    });
  });

  it("repairs a lone terminal call that fails preflight", () => {
    const plan = planSketches([{ name: "finish", arguments: {} }]);
    expect(plan).toMatchObject({ kind: "repair", segments: [] });
    expect(codesOf(plan)).toEqual([["invalid_arguments", 0]]);
  });
});

describe("rule 6: plain batch", () => {
  it("leaves a malformed call out of every segment, lists it, and runs the others", () => {
    expect(
      planSketches([read(), { name: "read_file", arguments: '{"path": "b.txt"' }, read("c.txt")]),
    ).toEqual({
      kind: "execute",
      segments: [{ kind: "wave", batchIndexes: [0, 2] }],
      problems: [expect.objectContaining({ batchIndex: 1, code: "malformed_arguments" })],
    });
  });

  it("lists unknown and invalid calls the same way", () => {
    const plan = planSketches([{ name: "frobnicate" }, read(), { name: "memory_get", arguments: {} }]);
    expect(plan.kind).toBe("execute");
    expect(plan.segments).toEqual([{ kind: "wave", batchIndexes: [1] }]);
    expect(codesOf(plan)).toEqual([
      ["unknown_tool", 0],
      ["invalid_arguments", 2],
    ]);
  });

  it("runs stateful calls alone between shared pure_read/vision waves", () => {
    const sketches = [
      read(),
      read(),
      { name: "memory_set", arguments: { key: "k", value: 1 } },
      read(),
      { name: "look_at_image" },
    ];
    expect(planSketches(sketches).segments).toEqual([
      { kind: "wave", batchIndexes: [0, 1] },
      { kind: "wave", batchIndexes: [2] },
      { kind: "wave", batchIndexes: [3, 4] },
    ]);
  });

  it("gives tasks, browser and write calls waves of their own", () => {
    const sketches = [
      { name: "task_create", arguments: { title: "t" } },
      { name: "open_page" },
      { name: "open_page" },
      read(),
    ];
    expect(planSketches(sketches).segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "wave", batchIndexes: [1] },
      { kind: "wave", batchIndexes: [2] },
      { kind: "wave", batchIndexes: [3] },
    ]);
  });

  it("plans an empty batch as an execute plan with nothing to run", () => {
    expect(planSketches([])).toEqual({ kind: "execute", segments: [], problems: [] });
  });
});

describe("approval policies", () => {
  it("plans write_file as a plain call when overridden to never", () => {
    expect(planSketches([read(), write()], {}, { approvals: { write_file: "never" } }).segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "wave", batchIndexes: [1] },
    ]);
  });

  it("makes read_file a barrier when overridden to always", () => {
    const plan = planSketches(
      [{ name: "list_files" }, read(), { name: "list_files" }],
      {},
      { approvals: { read_file: "always" } },
    );
    expect(plan.segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "barrier", batchIndex: 1 },
      { kind: "wave", batchIndexes: [2] },
    ]);
  });

  it("asks a custom predicate per call", () => {
    const plan = planSketches([
      { name: "transfer", arguments: { amount: 50 } },
      { name: "transfer", arguments: { amount: 500 } },
      read(),
    ]);
    expect(plan.segments).toEqual([
      { kind: "wave", batchIndexes: [0] },
      { kind: "barrier", batchIndex: 1 },
      { kind: "wave", batchIndexes: [2] },
    ]);
  });

  it("repairs a predicate call it cannot judge, instead of running it ungated", () => {
    const plan = planSketches([read(), { name: "transfer", arguments: { amount: "lots" } }]);
    expect(plan.kind).toBe("repair");
    expect(codesOf(plan)).toEqual([["invalid_arguments", 1]]);
  });
});

describe("planBatch input", () => {
  const registry = createToolRegistry();

  it("names calls by their batchIndex, not their array position", () => {
    const retained = createToolCallBatch([read(), write(), read()]).map((call) => ({
      ...call,
      batchIndex: call.batchIndex + 3,
    }));
    expect(planBatch(retained, registry, DEFAULT_LIMITS).plan.segments).toEqual([
      { kind: "wave", batchIndexes: [3] },
      { kind: "barrier", batchIndex: 4 },
      { kind: "wave", batchIndexes: [5] },
    ]);
  });

  it("returns every call's preflight in batch order", () => {
    const { calls } = planBatch(createToolCallBatch([read(), { name: "nope" }]), registry, DEFAULT_LIMITS);
    expect(calls.map((call) => [call.batchIndex, call.problem?.code ?? null])).toEqual([
      [0, null],
      [1, "unknown_tool"],
    ]);
  });

  it("refuses invalid limits and duplicate batch indexes", () => {
    const batch = createToolCallBatch([read()]);
    expect(() => planBatch(batch, registry, { ...DEFAULT_LIMITS, maxParallelToolCalls: 0 })).toThrow(
      InvalidPlanInputError,
    );
    expect(() => planBatch(batch, registry, { ...DEFAULT_LIMITS, maxBatchPayloadBytes: 1.5 })).toThrow(
      InvalidPlanInputError,
    );
    const duplicated = [...batch, ...batch];
    expect(() => planBatch(duplicated, registry, DEFAULT_LIMITS)).toThrow("distinct");
  });
});
