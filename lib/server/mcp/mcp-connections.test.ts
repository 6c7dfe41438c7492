import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMcpConnections } from "./mcp-connections";
import { type McpServerConfig, mcpServerSchema } from "./mcp-servers";

/** Connects, lists the server's tools, and closes. */
async function listMcpServerTools(id: string, config: McpServerConfig) {
  const connections = createMcpConnections(new Map([[id, config]]));
  try {
    return await connections.list(id);
  } finally {
    await connections.close();
  }
}

/** The CI fixture: the reference memory server, a child process over stdio, storing in a temporary file. */
function memoryServer(trust: "trusted" | "untrusted", extra: Record<string, unknown> = {}) {
  const folder = mkdtempSync(path.join(tmpdir(), "mcp-memory-"));
  return mcpServerSchema.parse({
    transport: {
      kind: "stdio",
      command: process.execPath,
      args: [path.join(process.cwd(), "node_modules/@modelcontextprotocol/server-memory/dist/index.js")],
      env: { MEMORY_FILE_PATH: path.join(folder, "memory.jsonl") },
    },
    trust,
    ...extra,
  });
}

describe("listing an MCP server's tools over stdio (the memory server)", () => {
  it("classifies a trusted server's tools by their annotations, fingerprinted and prefixed", async () => {
    const listed = await listMcpServerTools("memory", memoryServer("trusted"));
    expect(listed.problem).toBeNull();
    const byName = new Map(listed.tools.map((tool) => [tool.serverName, tool]));
    expect(byName.get("read_graph")).toMatchObject({
      name: "memory__read_graph",
      effect: "READ",
      resourceClass: "pure_read",
      approval: "never",
      annotations: { readOnlyHint: true },
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(byName.get("create_entities")).toMatchObject({
      effect: "NON_IDEMPOTENT_WRITE",
      resourceClass: "write",
      approval: "always",
    });
    expect(byName.get("delete_entities")).toMatchObject({
      effect: "IDEMPOTENT_WRITE",
      approval: "always",
      basis: expect.stringContaining("destructive"),
    });
    expect(byName.get("create_entities")?.description).toEqual(expect.any(String));
  });

  it("shows an untrusted server's annotations but gates every tool", async () => {
    const listed = await listMcpServerTools("memory", memoryServer("untrusted"));
    const read = listed.tools.find((tool) => tool.serverName === "read_graph");
    expect(read).toMatchObject({
      annotations: { readOnlyHint: true },
      effect: "NON_IDEMPOTENT_WRITE",
      resourceClass: "write",
      approval: "always",
    });
    expect(listed.tools.every((tool) => tool.approval === "always")).toBe(true);
  });

  it("lets the operator's per-tool override decide", async () => {
    const listed = await listMcpServerTools(
      "memory",
      memoryServer("trusted", { tools: { add_observations: { approval: "never" } } }),
    );
    expect(listed.tools.find((tool) => tool.serverName === "add_observations")).toMatchObject({
      approval: "never",
      basis: expect.stringContaining("the operator set approval"),
    });
  });

  it("names the problem, by the server's id only, when the server cannot be started", async () => {
    const broken = mcpServerSchema.parse({
      transport: { kind: "stdio", command: "/nonexistent/mcp-server", env: { SECRET_TOKEN: "s3cret" } },
      timeoutMs: 5_000,
    });
    const listed = await listMcpServerTools("broken", broken);
    expect(listed.tools).toEqual([]);
    expect(listed.problem).toMatch(/^The MCP server "broken" could not be listed: /);
    expect(listed.problem).not.toContain("s3cret");
  });
});

describe("a stdio server's environment", () => {
  it("is what the operator wrote for it plus PATH, nothing of this server's (HOME, SHELL, TERM included)", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "mcp-env-"));
    const inherited = {
      HOME: "/home/server",
      SHELL: "/bin/bash",
      TERM: "xterm",
      USER: "server",
      LOGNAME: "server",
      DATABASE_URL: "postgres://secret@db/prod",
    };
    const saved = Object.fromEntries(Object.keys(inherited).map((key) => [key, process.env[key]]));
    Object.assign(process.env, inherited);
    try {
      await listMcpServerTools(
        "notes",
        mcpServerSchema.parse({
          transport: {
            kind: "stdio",
            command: process.execPath,
            args: [path.join(process.cwd(), "lib/server/mcp/testing/fixture-mcp-server.mjs")],
            env: { FIXTURE_DIR: folder, TERM: "dumb" },
          },
        }),
      );
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    // The operator may still hand one of those variables over explicitly (TERM here).
    expect(JSON.parse(readFileSync(path.join(folder, "environment.json"), "utf8"))).toEqual([
      "FIXTURE_DIR",
      "PATH",
      "TERM",
    ]);
  });
});
