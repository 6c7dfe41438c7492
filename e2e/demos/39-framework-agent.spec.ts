import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "../support/accounts";

/** The lines a child process has printed so far, and a wait for one matching a pattern. */
function watchLines(child: ChildProcess) {
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => lines.push(line));
  return {
    lines,
    find: (pattern: RegExp) =>
      expect
        .poll(() => lines.find((line) => pattern.test(line)) ?? null, { timeout: 90_000 })
        .not.toBeNull()
        .then(() => lines.find((line) => pattern.test(line)) ?? ""),
  };
}

// A LangGraph.js agent (examples/langgraph/agent.ts, docs/agents.md), its model the e2e server's
// fake endpoint, its tool node swapped for the playground's: its three reads run as one wave, its
// write waits in the inbox until a person approves it there, and then it writes and finishes.
test("a LangGraph agent's write waits in the inbox, is approved there, and runs", async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  test.setTimeout(180_000);
  const tokenName = `langgraph agent ${testInfo.workerIndex}-${Date.now()}`;
  const made = await request.post("/api/tokens", {
    data: {
      email: E2E_ADMIN.email,
      name: tokenName,
      role: "agent",
    },
  });
  expect(made.status()).toBe(201);
  const { token } = await made.json();
  const folder = mkdtempSync(path.join(tmpdir(), "e2e-langgraph-"));
  writeFileSync(path.join(folder, "a.md"), "apples\n");
  writeFileSync(path.join(folder, "b.md"), "bread\n");
  writeFileSync(path.join(folder, "c.md"), "cheese\n");
  const agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "examples/langgraph/agent.ts",
      "--server",
      baseURL ?? "",
      "--model-url",
      `http://127.0.0.1:${process.env.E2E_FAKE_MODEL_PORT}/v1`,
      "--folder",
      folder,
    ],
    { env: { ...process.env, PLAYGROUND_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const output = watchLines(agent);
  try {
    const runId = (await output.find(/^run /)).slice("run ".length);

    await page.goto("/inbox");
    const row = page
      .getByRole("list", { name: "Waiting runs" })
      .getByRole("listitem", { name: /^LangGraph example: write_local_file/ })
      .filter({ hasText: `langgraph-example (agent, token ${tokenName}` });
    await expect(row).toBeVisible();
    await row.getByRole("button", { name: "Approve", exact: true }).click();

    await output.find(/^finished COMPLETED/);
    expect(readFileSync(path.join(folder, "summary.md"), "utf8")).toBe("apples\nbread\ncheese\n");
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("heading", { name: "Driven by the agent langgraph-example" })).toBeVisible();
  } finally {
    agent.kill();
    rmSync(folder, { recursive: true, force: true });
  }
});
