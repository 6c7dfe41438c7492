import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decidePending } from "@/lib/server/testing/agent-run-decisions";
import { linesOf } from "@/lib/server/testing/process-lines";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { agentApiRoutes, serveRoutes } from "@/lib/server/testing/serve-routes";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Each framework example (examples/*/agent.ts, docs/agents.md) as its own process against the agent API
// over loopback HTTP, its model the fake OpenAI-compatible endpoint; a person approves its write over the API.
let uninstall = async () => {};
let accounts: Record<Role, TestAccount>;
let server: { url: string; close(): Promise<void> };
let model: ChildProcess;
let modelUrl: string;
const folders: string[] = [];

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  accounts = await createTestAccounts(["agent", "approver"]);
  server = await serveRoutes(await agentApiRoutes());
  model = spawn(process.execPath, ["e2e/support/fake-model-server.mjs", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  modelUrl = (await linesOf(model).find(/on (http:\/\/\S+)/))[1] ?? "";
});
afterAll(async () => {
  model?.kill();
  await server?.close();
  await uninstall();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** Starts the example in a folder holding a.md, b.md and c.md; answers its output and its exit. */
async function startExample(framework: string) {
  const folder = await mkdtemp(join(tmpdir(), `${framework}-example-`));
  folders.push(folder);
  await writeFile(join(folder, "a.md"), "apples\n");
  await writeFile(join(folder, "b.md"), "bread\n");
  await writeFile(join(folder, "c.md"), "cheese\n");
  const agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      `examples/${framework}/agent.ts`,
      "--server",
      server.url,
      "--model-url",
      modelUrl,
      "--folder",
      folder,
    ],
    { env: { ...process.env, PLAYGROUND_TOKEN: accounts.agent.token }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const output = linesOf(agent);
  const exited = new Promise<number | null>((resolve) => agent.on("exit", (code) => resolve(code)));
  const runId = (await output.find(/^run (\S+)/))[1] ?? "";
  return { folder, output, exited, runId };
}

describe.each(["langgraph", "ai-sdk", "openai-agents"])("examples/%s/agent.ts", (framework) => {
  it("reads three files in one wave, waits in the inbox for its write, writes what was approved, and finishes", {
    timeout: 120_000,
  }, async () => {
    const { folder, output, exited, runId } = await startExample(framework);

    const pending = await decidePending(runId, accounts.approver, { approve: true });
    expect(pending.calls.map((call) => call.name)).toEqual(["write_local_file"]);
    expect(JSON.parse(pending.calls[0]?.arguments ?? "{}")).toEqual({
      path: "summary.md",
      content: "apples\nbread\ncheese\n",
    });

    expect(await exited, output.lines.join("\n")).toBe(0);
    expect(await readFile(join(folder, "summary.md"), "utf8")).toBe("apples\nbread\ncheese\n");
    expect(output.lines.at(-1)).toMatch(/^finished COMPLETED: Done: wrote 20 characters/);
    const { getRunService } = await import("@/lib/server/server-context");
    const view = await (await getRunService()).loadView(runId);
    // The three reads were one turn's one wave: they ran together.
    expect(view?.steps[0]?.plan).toMatchObject({ segments: [{ kind: "wave", batchIndexes: [0, 1, 2] }] });
    expect(view?.status).toBe("COMPLETED");
  });

  it("tells its model the approver's reply when the write is denied, and writes nothing", {
    timeout: 120_000,
  }, async () => {
    const { folder, output, exited, runId } = await startExample(framework);
    await decidePending(runId, accounts.approver, { approve: false, reason: "not into the shared folder" });

    expect(await exited, output.lines.join("\n")).toBe(0);
    // The fake model's last answer repeats the write's tool result: the reply reached the model.
    expect(output.lines.at(-1)).toMatch(/^finished COMPLETED: Done: .*not into the shared folder/);
    await expect(readFile(join(folder, "summary.md"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
