import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linesOf } from "@/lib/server/testing/process-lines";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { agentApiRoutes, serveRoutes } from "@/lib/server/testing/serve-routes";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// examples/python/agent.py against the agent API over HTTP on loopback, its model the fake endpoint:
// the protocol is language-neutral. A person approves its note with an edit; the agent sends the edit.
let accounts: Record<Role, TestAccount>;
let server: { url: string; close(): Promise<void> };
let model: ChildProcess;
let modelUrl: string;
let folder: string;

const setup = setUpRouteTests(["agent", "viewer", "approver"]);

beforeAll(async () => {
  accounts = setup.accounts;
  server = await serveRoutes(await agentApiRoutes());
  model = spawn(process.execPath, ["e2e/support/fake-model-server.mjs", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  modelUrl = (await linesOf(model).find(/on (http:\/\/\S+)/))[1] ?? "";
  folder = await mkdtemp(join(tmpdir(), "agent-example-"));
});
afterAll(async () => {
  model?.kill();
  await server?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe("examples/python/agent.py", () => {
  it("runs its reads, waits in the inbox for its note, sends what the approver edited, and finishes", {
    timeout: 120_000,
  }, async () => {
    const outbox = join(folder, "outbox.jsonl");
    const agent = spawn(
      "python3",
      ["examples/python/agent.py", "--server", server.url, "--model-url", modelUrl, "--outbox", outbox],
      {
        env: { ...process.env, PLAYGROUND_TOKEN: accounts.agent.token },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const output = linesOf(agent);
    const exited = new Promise<number | null>((resolve) => agent.on("exit", (code) => resolve(code)));
    const runId = (await output.find(/^run (\S+)/))[1] ?? "";
    await output.find(/^waiting for approval/).catch((error) => {
      throw new Error(`${error}\n${output.lines.join("\n")}`);
    });

    const { getRunService } = await import("@/lib/server/server-context");
    const service = await getRunService();
    const view = await service.loadView(runId);
    expect(view?.pending?.calls[0]?.name).toBe("send_note");
    const decision = await import("@/app/api/runs/[id]/decision/route");
    const approved = await decision.POST(
      new Request("http://test/api", {
        method: "POST",
        headers: { "content-type": "application/json", ...accounts.approver.headers },
        body: JSON.stringify({
          approve: true,
          turnDigest: view?.pending?.turnDigest,
          editedArguments: { to: "team", text: "shopping: oat milk" },
        }),
      }),
      { params: Promise.resolve({ id: runId }) },
    );
    expect(approved.status).toBe(200);

    expect(await exited).toBe(0);
    expect(output.lines).toContain("finished COMPLETED");
    expect(output.lines.filter((line) => line.startsWith("executed search_notes"))).toHaveLength(2);
    const sent = (await readFile(outbox, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(sent).toEqual([{ to: "team", text: "shopping: oat milk" }]);
    const finished = await service.loadView(runId);
    expect(finished?.status).toBe("COMPLETED");
    expect(JSON.stringify(finished?.steps.at(-1)?.calls[0]?.result)).toContain("oat milk");
  });
});
