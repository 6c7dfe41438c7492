import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { agentApiRoutes, serveRoutes } from "@/lib/server/testing/serve-routes";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// docs/agent-api.md's curl walkthrough, run as written (bash, curl, jq) against the agent API over
// loopback HTTP; the person's approval in the browser is made over the API here, with the same edit.
let accounts: Record<Role, TestAccount>;
let server: { url: string; close(): Promise<void> };

const setup = setUpRouteTests(["agent", "approver"]);

beforeAll(async () => {
  accounts = setup.accounts;
  server = await serveRoutes(await agentApiRoutes());
});
afterAll(async () => {
  await server?.close();
});

async function walkthroughScript(): Promise<string> {
  const doc = await readFile("docs/agent-api.md", "utf8");
  const section = doc.slice(doc.indexOf("## A walkthrough with curl"));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!script) throw new Error("docs/agent-api.md has no walkthrough script");
  return script;
}

describe("docs/agent-api.md's curl walkthrough", () => {
  it("runs as written: refused batch, reads in waves of 2, the write through an edited approval, finish", {
    timeout: 120_000,
  }, async () => {
    const script = await walkthroughScript();
    const shell = spawn("bash", ["-c", script], {
      env: { ...process.env, PLAYGROUND_URL: server.url, PLAYGROUND_TOKEN: accounts.agent.token },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines: string[] = [];
    let runId = "";
    const approved = new Promise<void>((resolve, reject) => {
      createInterface({ input: shell.stdout }).on("line", async (line) => {
        lines.push(line);
        if (line.startsWith("run ")) runId = line.slice(4);
        if (line !== "waiting for approval") return;
        try {
          const { getRunService } = await import("@/lib/server/server-context");
          const view = await (await getRunService()).loadView(runId);
          const decision = await import("@/app/api/runs/[id]/decision/route");
          const response = await decision.POST(
            new Request("http://test/api", {
              method: "POST",
              headers: { "content-type": "application/json", ...accounts.approver.headers },
              body: JSON.stringify({
                approve: true,
                turnDigest: view?.pending?.turnDigest,
                editedArguments: { to: "b@example.com" },
              }),
            }),
            { params: Promise.resolve({ id: runId }) },
          );
          expect(response.status).toBe(200);
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => shell.on("exit", (code) => resolve(code)));
    await approved;
    expect(await exited).toBe(0);
    expect(lines).toEqual([
      `run ${runId}`,
      "turn_refused",
      '["r1","r2"]',
      '["ok","ok","ok","ok","ok"]',
      "waiting for approval",
      '{"name":"send_email","arguments":"{\\"to\\":\\"b@example.com\\"}","edited":true}',
      '{"callId":"r6","status":"ok","edited":false,"arguments":"{\\"q\\":\\"6\\"}"}',
      '{"callId":"w","status":"ok","edited":true,"arguments":"{\\"to\\":\\"b@example.com\\"}"}',
      "COMPLETED",
    ]);
  });

  it("ends, saying why, when the token is wrong: its loops stop on a refusal", {
    timeout: 60_000,
  }, async () => {
    const shell = spawn("bash", ["-c", await walkthroughScript()], {
      env: { ...process.env, PLAYGROUND_URL: server.url, PLAYGROUND_TOKEN: "tp_no-such-token" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let errors = "";
    shell.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    await new Promise((resolve) => shell.on("exit", resolve));
    expect(errors).toContain('"code":"unauthenticated"');
  });
});
