import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readMcpServers } from "./mcp-servers";

const stdio = { transport: { kind: "stdio", command: "npx", args: ["-y", "some-server"] } };

describe("the operator's MCP servers", () => {
  it("reads servers from the environment, untrusted by default", () => {
    const { servers, problem } = readMcpServers({
      PLAYGROUND_MCP_SERVERS: JSON.stringify({
        memory: stdio,
        docs: { transport: { kind: "http", url: "http://127.0.0.1:3001/mcp" }, trust: "trusted" },
      }),
    });
    expect(problem).toBeNull();
    expect(servers.get("memory")).toMatchObject({ trust: "untrusted", timeoutMs: 30_000, tools: {} });
    expect(servers.get("docs")?.trust).toBe("trusted");
  });

  it("reads them from a file", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-")), "mcp.json");
    writeFileSync(file, JSON.stringify({ memory: stdio }));
    expect(readMcpServers({ PLAYGROUND_MCP_SERVERS_FILE: file }).servers.has("memory")).toBe(true);
  });

  it.each([
    [{ Memory: stdio }, "Memory"],
    [{ my__server: stdio }, "my__server"],
    [{ memory: { ...stdio, trust: "somewhat" } }, "memory.trust"],
    [{ memory: { transport: { kind: "ftp", url: "ftp://x" } } }, "memory.transport.kind"],
    [{ memory: { transport: { kind: "http", url: "file:///etc/passwd" } } }, "memory.transport.url"],
    [{ memory: { ...stdio, shell: true } }, "shell"],
    [{ memory: { ...stdio, tools: { x: { approval: "sometimes" } } } }, "memory.tools.x.approval"],
  ])("configures nothing from an invalid configuration, and names what is wrong: %j", (config, named) => {
    const { servers, problem } = readMcpServers({ PLAYGROUND_MCP_SERVERS: JSON.stringify(config) });
    expect(servers.size).toBe(0);
    expect(problem).toContain("PLAYGROUND_MCP_SERVERS is invalid");
    expect(problem).toContain(named);
  });
});
