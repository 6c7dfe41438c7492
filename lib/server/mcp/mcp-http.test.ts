import { type ChildProcess, spawn } from "node:child_process";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../testing/free-port";
import { buildScenario, openScenarioHarness, type ScenarioHarness } from "../testing/scenario-harness";
import { createMcpConnections, type McpConnections } from "./mcp-connections";
import { mcpServerSchema } from "./mcp-servers";

// The reference "everything" server over Streamable HTTP, started on 127.0.0.1 only (it would
// listen on every interface by default).

const EVERYTHING = path.join(
  process.cwd(),
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
const LOOPBACK_ONLY = path.join(process.cwd(), "lib/server/mcp/testing/listen-on-loopback.mjs");

let port: number;
let everything: ChildProcess;
let connections: McpConnections;
let harness: ScenarioHarness;

beforeAll(async () => {
  port = await findFreePort();
  everything = spawn(process.execPath, ["--import", LOOPBACK_ONLY, EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    everything.stderr?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) resolve();
    });
    everything.once("exit", (code) => reject(new Error(`the everything server exited (${code})`)));
  });
  const config = mcpServerSchema.parse({
    transport: { kind: "http", url: `http://127.0.0.1:${port}/mcp` },
    trust: "trusted",
    timeoutMs: 10_000,
  });
  const servers = new Map([["everything", config]]);
  connections = createMcpConnections(servers);
  harness = await openScenarioHarness({ mcp: { servers: { servers, problem: null }, connections } });
}, 30_000);

afterAll(async () => {
  await connections?.close();
  await harness?.close();
  everything?.kill();
});

describe("an MCP server over Streamable HTTP (the everything server)", () => {
  // A machine with no other interface has nothing to check.
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && !address.internal && address.family === "IPv4");
  it.runIf(outside)("listens on loopback only", async () => {
    await expect(fetch(`http://${outside?.address}:${port}/mcp`)).rejects.toThrow();
  });

  it("lists its tools and runs trusted reads in waves at the cap", async () => {
    const listed = await connections.list("everything");
    expect(listed.problem).toBeNull();
    expect(listed.tools.find((tool) => tool.serverName === "echo")).toMatchObject({
      name: "everything__echo",
      resourceClass: "pure_read",
      approval: "never",
    });
    const { runId, settled } = await harness.service.startRun(
      buildScenario({
        name: "echo over http",
        mcpServers: ["everything"],
        limits: { maxParallelToolCalls: 2 },
        model: {
          kind: "scripted",
          turns: [
            {
              calls: ["one", "two", "three"].map((message) => ({
                name: "everything__echo",
                arguments: { message },
              })),
            },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    expect(await settled).toBe("COMPLETED");
    const report = await harness.service.getReport(runId);
    expect(report?.steps[0]?.plan.segments).toEqual([
      { kind: "wave", batchIndexes: [0, 1] },
      { kind: "wave", batchIndexes: [2] },
    ]);
    expect(report?.steps[0]?.calls[2]?.result).toEqual({ content: [{ type: "text", text: "Echo: three" }] });
  });

  it("passes the server's progress reports on as the call's progress", async () => {
    const { runId, settled } = await harness.service.startRun(
      buildScenario({
        name: "long operation over http",
        mcpServers: ["everything"],
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "everything__trigger-long-running-operation", arguments: { duration: 3, steps: 3 } },
              ],
            },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    expect(await settled).toBe("COMPLETED");
    const reports = (await harness.service.readEvents(runId, 0)).flatMap((event) =>
      event.type === "call_progress" ? [[event.payload.progress, event.payload.total]] : [],
    );
    expect(reports.slice(0, 2)).toEqual([
      [1, 3],
      [2, 3],
    ]);
  });
});
