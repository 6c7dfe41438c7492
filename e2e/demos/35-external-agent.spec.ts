import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { expect, test } from "@playwright/test";
import { RunPage } from "../pages/run-page";
import { E2E_ADMIN } from "../support/accounts";

/** The lines a child process has printed so far, and a wait for one matching a pattern. */
function watchLines(child: ChildProcess) {
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => lines.push(line));
  return {
    lines,
    find: (pattern: RegExp) =>
      expect
        .poll(() => lines.find((line) => pattern.test(line)) ?? null, { timeout: 60_000 })
        .not.toBeNull()
        .then(() => lines.find((line) => pattern.test(line)) ?? ""),
  };
}

// An agent that runs elsewhere (examples/python/agent.py, docs/agent-api.md), its model the e2e
// server's fake endpoint: its note waits in the inbox, a person edits and approves it in the
// browser, the agent receives the edited arguments and sends them, and the run page tells it all.
test("an external agent's write waits in the inbox, is edited and approved in the browser, and runs as edited", async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  const made = await request.post("/api/tokens", {
    data: {
      email: E2E_ADMIN.email,
      name: `python agent ${testInfo.workerIndex}-${Date.now()}`,
      role: "agent",
    },
  });
  expect(made.status()).toBe(201);
  const { token } = await made.json();
  const outbox = path.join(mkdtempSync(path.join(tmpdir(), "e2e-agent-")), "outbox.jsonl");
  const agent = spawn(
    "python3",
    [
      "examples/python/agent.py",
      "--server",
      baseURL ?? "",
      "--model-url",
      `http://127.0.0.1:${process.env.E2E_FAKE_MODEL_PORT}/v1`,
      "--outbox",
      outbox,
    ],
    { env: { ...process.env, PLAYGROUND_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const output = watchLines(agent);
  try {
    const runId = (await output.find(/^run /)).slice("run ".length);
    await output.find(/^waiting for approval/);

    // The inbox lists it like any waiting run, marked with the agent.
    await page.goto("/inbox");
    await expect(page.getByText(/notes-agent \(agent, token python agent/).first()).toBeVisible();

    await page.goto(`/runs/${runId}`);
    const run = new RunPage(page);
    await expect(page.getByRole("heading", { name: "Driven by the agent notes-agent" })).toBeVisible();
    await run.approvalPanel.getByRole("button", { name: "Edit arguments, then approve" }).click();
    const field = run.approvalPanel.getByRole("textbox", { name: /Arguments of send_note/ });
    await field.fill('{ "to": "team", "text": "shopping: oat milk" }');
    await run.approvalPanel.getByRole("button", { name: "Approve with these arguments" }).click();

    await output.find(/^finished COMPLETED/);
    await run.expectStatus("Completed", 60_000);
    expect(readFileSync(outbox, "utf8").trim()).toBe('{"to": "team", "text": "shopping: oat milk"}');
    const panel = page.getByRole("region", { name: /Driven by the agent/ });
    await expect(panel).toContainText(/Executed by the agent:.*search_notes.*send_note/);
    await expect(panel).toContainText(/Executed by the server:.*finish/);
    await expect(run.call(1, "send_note", 2)).toContainText("edited");
    await run.screenshot("an external agent's run, its note edited and approved", testInfo);
  } finally {
    agent.kill();
  }
});
