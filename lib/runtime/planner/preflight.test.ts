import { describe, expect, it } from "vitest";
import { createToolCallBatch } from "../testing";
import type { ToolDefinition } from "../tools/tool-definition";
import { createToolRegistry } from "../tools/tool-registry";
import type { ToolCall } from "../types";
import { preflightCall } from "./preflight";

function createTransferTool(approval: ToolDefinition["approval"]): ToolDefinition {
  return {
    name: "transfer",
    description: "Move money",
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval,
    execute: async () => ({}),
  };
}

function createCall(name: string, rawArguments: string, batchIndex = 0): ToolCall {
  return { id: `call-${batchIndex}`, name, arguments: rawArguments, batchIndex };
}

describe("preflightCall", () => {
  const registry = createToolRegistry();

  it("describes a clean call as plain JSON data", () => {
    const preflighted = preflightCall(
      createCall("write_file", '{"path":"a.txt","content":"x"}', 2),
      registry,
    );
    expect(preflighted).toEqual({
      batchIndex: 2,
      id: "call-2",
      name: "write_file",
      arguments: '{"path":"a.txt","content":"x"}',
      parsedArguments: { path: "a.txt", content: "x" },
      resourceClass: "write",
      effect: "IDEMPOTENT_WRITE",
      isGated: true,
      problem: null,
    });
    expect(JSON.parse(JSON.stringify(preflighted))).toEqual(preflighted);
  });

  it("reports an unknown tool first, fails closed on its effect and does not gate it", () => {
    const preflighted = preflightCall(createCall("launch_missiles", "not json", 4), registry);
    expect(preflighted).toMatchObject({
      resourceClass: null,
      effect: "NON_IDEMPOTENT_WRITE",
      isGated: false,
      problem: { batchIndex: 4, code: "unknown_tool" },
    });
    expect(preflighted.problem?.message).toContain("call 4");
    expect(preflighted.problem?.message).toContain('"launch_missiles"');
  });

  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["{", "not valid JSON"],
    ['{"path": "a.txt",}', "not valid JSON"],
    ["[]", "got an array"],
    ["null", "got null"],
    ["3", "got a number"],
    ['"a.txt"', "got a string"],
    // One value to the rules and the approver, maybe the other to whatever runs it.
    ['{"path":"evil.txt","path":"a.txt"}', 'the key "path" is written twice; write each key once'],
    ['{"path":"evil.txt","\\u0070ath":"a.txt"}', 'the key "path" is written twice'],
    ['{"path":"a.txt","o":{"k":[{"x":1,"x":2}]}}', 'the key "x" is written twice in the object at o.k.0'],
  ])("reports %j as malformed (%s)", (rawArguments, reason) => {
    const preflighted = preflightCall(createCall("read_file", rawArguments, 1), registry);
    expect(preflighted.problem?.code).toBe("malformed_arguments");
    expect(preflighted.problem?.batchIndex).toBe(1);
    expect(preflighted.problem?.message).toContain('call 1 ("read_file")');
    expect(preflighted.problem?.message).toContain(reason);
    expect(preflighted.parsedArguments).toBeNull();
    expect(preflighted.resourceClass).toBe("pure_read");
  });

  it("lists every schema message, and keeps the parsed object for display", () => {
    const preflighted = preflightCall(createCall("write_file", '{"content":1}', 0), registry);
    expect(preflighted.problem).toEqual({
      batchIndex: 0,
      code: "invalid_arguments",
      message:
        'call 0 ("write_file"): invalid arguments: path: is required; content: must be text (a JSON string)',
    });
    expect(preflighted.parsedArguments).toEqual({ content: 1 });
  });

  it("follows always/never policies and approval overrides", () => {
    const overridden = createToolRegistry({ approvals: { write_file: "never", read_file: "always" } });
    const [write, read] = createToolCallBatch([
      { name: "write_file", arguments: { path: "a", content: "" } },
      { name: "read_file", arguments: { path: "a" } },
    ]);
    if (write === undefined || read === undefined) {
      throw new Error("batch too short");
    }
    expect(preflightCall(write, registry).isGated).toBe(true);
    expect(preflightCall(read, registry).isGated).toBe(false);
    expect(preflightCall(write, overridden).isGated).toBe(false);
    expect(preflightCall(read, overridden).isGated).toBe(true);
  });

  it("asks a predicate policy with the parsed arguments, without letting it mutate them", () => {
    const predicateRegistry = createToolRegistry({
      definitions: [
        createTransferTool((args) => {
          const amount = Number(args.amount);
          args.amount = 0;
          return amount > 100;
        }),
      ],
    });
    const small = preflightCall(createCall("transfer", '{"amount":50}'), predicateRegistry);
    const large = preflightCall(createCall("transfer", '{"amount":500}'), predicateRegistry);
    expect(small.isGated).toBe(false);
    expect(large.isGated).toBe(true);
    expect(large.parsedArguments).toEqual({ amount: 500 });
  });

  it("gates conservatively when a predicate cannot judge the arguments or throws", () => {
    const predicateRegistry = createToolRegistry({ definitions: [createTransferTool(() => false)] });
    expect(preflightCall(createCall("transfer", "{oops"), predicateRegistry).isGated).toBe(true);
    expect(preflightCall(createCall("transfer", '{"amount":"lots"}'), predicateRegistry).isGated).toBe(true);
    expect(preflightCall(createCall("transfer", '{"amount":1}'), predicateRegistry).isGated).toBe(false);

    const throwingRegistry = createToolRegistry({
      definitions: [
        createTransferTool(() => {
          throw new Error("boom");
        }),
      ],
    });
    expect(preflightCall(createCall("transfer", '{"amount":1}'), throwingRegistry).isGated).toBe(true);
  });
});
