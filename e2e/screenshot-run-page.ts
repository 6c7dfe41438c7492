// `npm run docs:screenshot`: the README's picture, docs/images/run-page.png. It starts the production
// build (`npm run build` first) on a throwaway in-memory database, signs in as a throwaway
// administrator, starts a run whose first step reads in waves and whose second waits at a barrier,
// and takes the run page as a 1280×800 window shows it. Not a test: run it when the page changes.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { chromium, expect } from "@playwright/test";
import { findFreePort } from "../lib/server/testing/free-port";
import { productionStart } from "../lib/server/testing/production-start";

const OUTPUT = path.join("docs", "images", "run-page.png");
const ADMIN = { email: "ada@example.com", password: "a-throwaway-password-for-the-picture" };
const SYSTEM_CHROMIUM = "/usr/bin/chromium";
/** A server start and a page on a busy machine: minutes, not seconds (the e2e suite allows as much). */
const STEP_TIMEOUT_MS = 240_000;

const NOTES = ["monday", "tuesday", "wednesday", "thursday", "friday"];

/** Step 1: five reads at a cap of two, in three waves. Step 2: a write that waits for a person, a read kept behind it. */
const SCENARIO = {
  name: "tidy the notes",
  limits: { maxParallelToolCalls: 2 },
  workspace: Object.fromEntries(NOTES.map((name) => [`notes/${name}.md`, `# ${name}\n`])),
  model: {
    kind: "scripted",
    turns: [
      {
        text: "I'll read every note first.",
        calls: NOTES.map((name) => ({ name: "read_file", arguments: { path: `notes/${name}.md` } })),
      },
      {
        text: "Now I'll write the index, then check it.",
        calls: [
          {
            name: "write_file",
            arguments: { path: "notes/index.md", content: "# index\n\n- monday\n- tuesday\n" },
          },
          { name: "read_file", arguments: { path: "notes/index.md" } },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "The notes have an index." } }] },
    ],
  },
};

async function waitForHealth(baseURL: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    const healthy = await fetch(`${baseURL}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the server did not answer ${baseURL}/api/health within ${STEP_TIMEOUT_MS} ms`);
}

async function main() {
  if (!existsSync(path.join(".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first.");
  }
  const port = await findFreePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const { command, args } = productionStart(port);
  const server = spawn(command, args, {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: "",
      PGLITE_DATA_DIR: "memory://",
      PLAYGROUND_ADMIN_EMAIL: ADMIN.email,
      PLAYGROUND_ADMIN_PASSWORD: ADMIN.password,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const browser = await chromium
    .launch({
      executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
      args: ["--no-sandbox", "--disable-gpu"],
    })
    .catch((error: unknown) => {
      server.kill();
      throw error;
    });
  try {
    await waitForHealth(baseURL, server);
    const context = await browser.newContext({
      baseURL,
      viewport: { width: 1280, height: 800 },
      locale: "en-US",
      timezoneId: "UTC",
    });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    const page = await context.newPage();
    await page.goto("/sign-in");
    await page.getByRole("textbox", { name: "Email" }).fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible({ timeout: STEP_TIMEOUT_MS });

    const started = await page.request.post("/api/runs", { data: SCENARIO });
    if (started.status() !== 201)
      throw new Error(`starting the run: ${started.status()} ${await started.text()}`);
    const { runId } = (await started.json()) as { runId: string };
    await page.goto(`/runs/${runId}`);
    // Waiting, or ended: a scenario the planner repairs instead (a batch over the cap) never waits.
    const status = page.getByRole("status", { name: "Run status" });
    await expect(status).toHaveText(/waiting|completed|failed|cancelled/i, { timeout: STEP_TIMEOUT_MS });
    await expect(status).toHaveText(/waiting/i, { timeout: 1 });
    await expect(page.getByRole("region", { name: "Approval needed" })).toBeVisible();
    // The picture shows step 1's waves above and step 2's barrier below, over the decision bar: the
    // page opens at its top (the approval panel), so scroll to step 1.
    await page.getByRole("article", { name: "Step 1" }).evaluate((element) => element.scrollIntoView());
    await page.evaluate(() => document.fonts.ready);
    mkdirSync(path.dirname(OUTPUT), { recursive: true });
    await page.screenshot({ path: OUTPUT, animations: "disabled", caret: "hide" });
    console.log(`${OUTPUT}: ${Math.round(statSync(OUTPUT).size / 1024)} KB`);
  } finally {
    await browser.close();
    server.kill();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
