import { describe, expect, it } from "vitest";
import { ToolConfigurationError } from "../errors";
import { transferTool } from "../testing/transfer-tool";
import type { CustomToolDeclaration } from "./custom-tool-declaration";
import { createToolRegistry } from "./tool-registry";

const deployDeclaration: CustomToolDeclaration = {
  name: "deploy",
  description: "Deploy a service",
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "always",
  parameters: {
    type: "object",
    properties: {
      service: { type: "string" },
      mode: { enum: ["fast", "safe"] },
      options: { type: "object", properties: { replicas: { type: "integer" } } },
      note: { type: ["string", "null"] },
    },
    required: ["service"],
    additionalProperties: false,
  },
  result: { deployed: true },
};

describe("built-in tools", () => {
  it.each([
    ["read_file", "pure_read", "READ", "never", ["path"]],
    ["list_files", "pure_read", "READ", "never", []],
    ["search_files", "pure_read", "READ", "never", ["query"]],
    ["write_file", "write", "IDEMPOTENT_WRITE", "always", ["path", "content"]],
    ["delete_file", "write", "NON_IDEMPOTENT_WRITE", "always", ["path"]],
    ["memory_get", "memory", "READ", "never", ["key"]],
    ["memory_set", "memory", "IDEMPOTENT_WRITE", "never", ["key", "value"]],
    ["task_create", "tasks", "NON_IDEMPOTENT_WRITE", "never", ["title"]],
    ["reply", "terminal", "READ", "never", ["message"]],
    ["finish", "terminal", "READ", "never", ["summary"]],
  ])("%s is %s, %s, approval %s, requires %j", (name, resourceClass, effect, approval, required) => {
    const registry = createToolRegistry();
    const tool = registry.get(name);
    expect(tool).toMatchObject({ name, resourceClass, effect, approval });
    expect(tool?.parameters).toMatchObject({ type: "object", required, additionalProperties: false });
    expect(registry.effectFor(name)).toBe(effect);
  });

  it("lists the ten built-ins in the order docs/scenario-format.md lists them", () => {
    expect(
      createToolRegistry()
        .list()
        .map((tool) => tool.name),
    ).toEqual([
      "read_file",
      "list_files",
      "search_files",
      "write_file",
      "delete_file",
      "memory_get",
      "memory_set",
      "task_create",
      "reply",
      "finish",
    ]);
  });

  it("treats an unknown tool as a non-idempotent write", () => {
    const registry = createToolRegistry();
    expect(registry.get("rm_rf")).toBeUndefined();
    expect(registry.effectFor("rm_rf")).toBe("NON_IDEMPOTENT_WRITE");
    expect(registry.effectFor("__proto__")).toBe("NON_IDEMPOTENT_WRITE");
  });
});

describe("validateArguments", () => {
  const registry = createToolRegistry({ tools: [deployDeclaration] });

  it("is empty for valid arguments", () => {
    expect(registry.validateArguments("write_file", { path: "a", content: "" })).toEqual([]);
    expect(registry.validateArguments("list_files", {})).toEqual([]);
  });

  it("names every offending field", () => {
    expect(registry.validateArguments("write_file", { content: 3, extra: true })).toEqual([
      "path: is required",
      "extra: is not an allowed field",
      "content: must be text (a JSON string)",
    ]);
    expect(registry.validateArguments("read_file", { path: "" })).toEqual([
      "path: must NOT have fewer than 1 characters",
    ]);
  });

  it("names nested fields and allowed values of custom tools", () => {
    expect(registry.validateArguments("deploy", { mode: "yolo", options: { replicas: 1.5 } })).toEqual([
      "service: is required",
      'mode: must be one of "fast", "safe"',
      "options.replicas: must be a whole number",
    ]);
  });

  it("says a wrong kind of value in the words every other check uses, each kind a schema allows", () => {
    expect(registry.validateArguments("deploy", { service: 1, note: 2 })).toEqual([
      "service: must be text (a JSON string)",
      "note: must be text (a JSON string) or null",
    ]);
  });

  it("never coerces types", () => {
    const args = { path: 1 };
    expect(registry.validateArguments("read_file", args)).toEqual(["path: must be text (a JSON string)"]);
    expect(args).toEqual({ path: 1 });
  });

  it("reports an unknown tool", () => {
    expect(registry.validateArguments("nope", {})).toEqual(['tool "nope" is not registered']);
  });
});

describe("custom tools and overrides", () => {
  it("adds custom tools after the built-ins with their declared class and policy", () => {
    const registry = createToolRegistry({ tools: [deployDeclaration] });
    expect(registry.list().at(-1)?.name).toBe("deploy");
    expect(registry.get("deploy")).toMatchObject({
      resourceClass: "write",
      effect: "NON_IDEMPOTENT_WRITE",
      approval: "always",
    });
  });

  it("refuses a custom tool reusing a built-in name, naming it", () => {
    const creating = () => createToolRegistry({ tools: [{ ...deployDeclaration, name: "read_file" }] });
    expect(creating).toThrow(ToolConfigurationError);
    expect(creating).toThrow('custom tool "read_file" reuses the name of a built-in tool');
  });

  it("refuses two custom tools with one name", () => {
    expect(() => createToolRegistry({ tools: [deployDeclaration, deployDeclaration] })).toThrow(
      'custom tool "deploy" is declared more than once',
    );
  });

  it("refuses an invalid declaration, naming the tool and fields", () => {
    const declaration = {
      ...deployDeclaration,
      resourceClass: "network",
      delayMs: -1,
    } as unknown as CustomToolDeclaration;
    expect(() => createToolRegistry({ tools: [declaration] })).toThrow(
      /custom tool "deploy" is invalid: resourceClass: .*; delayMs: /,
    );
    expect(() =>
      createToolRegistry({ tools: [{ ...deployDeclaration, parameters: { type: "string" } }] }),
    ).toThrow('parameters: must be a JSON Schema with type "object"');
    expect(() => createToolRegistry({ tools: [{ ...deployDeclaration, name: "has space" }] })).toThrow(
      "name:",
    );
  });

  it("refuses a JSON Schema that does not compile, naming the tool", () => {
    const creating = () =>
      createToolRegistry({
        tools: [
          {
            ...deployDeclaration,
            parameters: { type: "object", properties: { service: { type: "strnig" } } },
          },
        ],
      });
    expect(creating).toThrow(ToolConfigurationError);
    expect(creating).toThrow('tool "deploy" has an invalid JSON Schema');
  });

  it("applies approval overrides to built-in and custom tools without touching other registries", () => {
    const registry = createToolRegistry({
      tools: [deployDeclaration],
      approvals: { write_file: "never", read_file: "always", deploy: "never" },
    });
    expect(registry.get("write_file")?.approval).toBe("never");
    expect(registry.get("read_file")?.approval).toBe("always");
    expect(registry.get("deploy")?.approval).toBe("never");
    expect(createToolRegistry().get("write_file")?.approval).toBe("always");
  });

  it("refuses an override naming an unknown tool or an unknown policy", () => {
    expect(() => createToolRegistry({ approvals: { deploy: "always" } })).toThrow(
      'approval override names an unknown tool "deploy"',
    );
    expect(() => createToolRegistry({ approvals: { write_file: "sometimes" as "always" } })).toThrow(
      'must be "always" or "never"',
    );
  });

  it("accepts code-defined tools with a predicate policy and checks their shape", () => {
    const definition = transferTool;
    expect(createToolRegistry({ definitions: [definition] }).get("transfer")?.approval).toBeTypeOf(
      "function",
    );
    expect(() =>
      createToolRegistry({ definitions: [{ ...definition, resourceClass: "network" as "write" }] }),
    ).toThrow('tool "transfer" is invalid: resourceClass');
    expect(() => createToolRegistry({ definitions: [{ ...definition, name: "finish" }] })).toThrow(
      "built-in",
    );
  });
});

describe("tools defined elsewhere (an MCP server's)", () => {
  const fromServer = {
    name: "memory__create_entities",
    description: "Creates entities",
    parameters: { type: "object" as const },
    resourceClass: "write" as const,
    effect: "NON_IDEMPOTENT_WRITE" as const,
    approval: "always" as const,
    fingerprint: "a".repeat(64),
    origin: {
      kind: "mcp" as const,
      server: "memory",
      trust: "trusted" as const,
      serverToolName: "create_entities",
      annotations: null,
      outputSchema: null,
      basis: "test",
    },
    execute: async () => ({}),
  };

  it("never lets an approval override switch their approval off: only the operator decides that", () => {
    expect(() =>
      createToolRegistry({ definitions: [fromServer], approvals: { memory__create_entities: "never" } }),
    ).toThrow(ToolConfigurationError);
    const stricter = createToolRegistry({
      definitions: [{ ...fromServer, approval: "never" }],
      approvals: { memory__create_entities: "always" },
    });
    expect(stricter.get("memory__create_entities")?.approval).toBe("always");
  });
});
