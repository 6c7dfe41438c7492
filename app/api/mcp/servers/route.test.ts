import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let operator: TestAccount;
let viewer: TestAccount;
let route: typeof import("./route");

const setup = setUpRouteTests(["viewer", "operator"]);

beforeAll(async () => {
  vi.stubEnv(
    "PLAYGROUND_MCP_SERVERS",
    JSON.stringify({
      memory: {
        transport: {
          kind: "stdio",
          command: process.execPath,
          args: [path.join(process.cwd(), "node_modules/@modelcontextprotocol/server-memory/dist/index.js")],
          env: { MEMORY_FILE_PATH: path.join(tmpdir(), `mcp-route-test-${process.pid}.jsonl`) },
        },
        trust: "trusted",
      },
    }),
  );
  ({ operator, viewer } = setup.accounts);
  route = await import("./route");
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

describe("GET /api/mcp/servers", () => {
  it("lists each configured server's tools for an operator, never its command or environment", async () => {
    const response = await route.GET(
      new Request("http://test/api/mcp/servers", { headers: operator.headers }),
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("server-memory/dist");
    expect(text).not.toContain("MEMORY_FILE_PATH");
    const body = JSON.parse(text);
    expect(body).toMatchObject({
      problem: null,
      servers: [{ id: "memory", transport: "stdio", trust: "trusted" }],
    });
    expect(body.servers[0].tools.map((tool: { name: string }) => tool.name)).toContain("memory__read_graph");
  });

  it("is not for viewers", async () => {
    const response = await route.GET(new Request("http://test/api/mcp/servers", { headers: viewer.headers }));
    expect(response.status).toBe(403);
  });
});
