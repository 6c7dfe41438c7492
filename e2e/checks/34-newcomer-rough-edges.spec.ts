import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, type TestInfo, test } from "@playwright/test";
import { findFreePort } from "../../lib/server/testing/free-port";
import { getView, loadScenario, startRunOverApi, waitForStatus } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { RunPage } from "../pages/run-page";
import { allowFor } from "../support/budget";

// The rough edges a new user hit first (issue 31): each test is one of them, at a laptop's and a phone's size.
const LAPTOP = { width: 1280, height: 800 };
// Each test runs axe over a whole page and takes screenshots: on a busy 2-core machine that outgrows 30 s.
test.describe.configure({ timeout: 120_000 });
const PHONE = { width: 390, height: 844 };

async function look(page: Page, label: string, testInfo: TestInfo) {
  const body = await page.screenshot();
  await testInfo.attach(label, { body, contentType: "image/png" });
  // To look at them without the HTML report: E2E_SCREENSHOT_DIR=/some/dir.
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) writeFileSync(path.join(folder, `${label.replaceAll(/\W+/g, "-")}.png`), body);
}

async function expectNoAxeViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const found = results.violations.map((violation) => ({
    rule: violation.id,
    targets: violation.nodes.map((node) => node.target),
  }));
  expect(found, label).toEqual([]);
}

async function expectInView(locator: Locator, label: string) {
  const box = await locator.boundingBox();
  const viewport = locator.page().viewportSize();
  expect(box, label).not.toBeNull();
  expect(box && viewport && box.y >= 0 && box.y + box.height <= viewport.height, label).toBe(true);
}

for (const screen of [LAPTOP, PHONE]) {
  test(`Approve stays in view while a run waits, and the header leaves room, at ${screen.width} px`, async ({
    page,
    request,
  }, testInfo) => {
    await page.setViewportSize(screen);
    // Seven calls in the turn: the calls alone are taller than the screen.
    const runId = await startRunOverApi(request, {
      ...loadScenario("two-gates-in-one-batch.json"),
      decisions: [],
    });
    await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
    await page.goto(`/runs/${runId}`);
    const run = new RunPage(page);
    const approve = run.approvalPanel.getByRole("button", { name: "Approve", exact: true });
    await expect(approve).toBeVisible();
    await expectInView(approve, "Approve, as the page opens");
    await expectInView(run.approvalPanel.getByRole("textbox", { name: /Reply to the model/ }), "the reply");
    await look(page, `waiting run, top, ${screen.width} px`, testInfo);

    // The site header: two rows at most on a phone, one on a laptop.
    const header = await page.locator(".site-header").boundingBox();
    expect(header?.height ?? 0).toBeLessThan(screen === PHONE ? 90 : 70);

    // Scrolled to the end of the page: still there, and the page's last lines are not hidden behind it.
    await page.keyboard.press("End");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expectInView(approve, "Approve, scrolled to the end");
    const bar = await page.locator(".decision-bar").boundingBox();
    const last = await page.getByText(/^Event log/).boundingBox();
    expect((last?.y ?? 0) + (last?.height ?? 0)).toBeLessThanOrEqual(bar?.y ?? 0);
    await look(page, `waiting run, end, ${screen.width} px`, testInfo);
    await expectNoAxeViolations(page, `waiting run, ${screen.width} px`);

    // The reply's placeholder is shown whole.
    const placeholder = await run.approvalPanel
      .getByRole("textbox", { name: /Reply to the model/ })
      .evaluate((input: HTMLInputElement) => {
        const context = document.createElement("canvas").getContext("2d");
        if (!context) return { text: 0, room: 0 };
        const style = getComputedStyle(input);
        context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const padding = Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight);
        return { text: context.measureText(input.placeholder).width, room: input.clientWidth - padding };
      });
    expect(placeholder.text).toBeLessThanOrEqual(placeholder.room);

    // Editing the arguments: the playground's editor (CodeMirror), in the flow of the page.
    await run.approvalPanel.getByRole("button", { name: "Edit arguments, then approve" }).click();
    const field = run.approvalPanel.getByRole("textbox", { name: /Arguments of write_file/ });
    await expect(field).toHaveAttribute("contenteditable", "true");
    await expect(field).toContainText('"path": "new/report.txt"');
    await field.fill('{ "path": "new/report.txt", "content": "edited\\n" }');
    await expect(run.approvalPanel.getByText("The tool accepts these arguments.")).toBeVisible();
    await look(page, `editing arguments, ${screen.width} px`, testInfo);
    await field.press("Escape");
    await expect(field).toHaveCount(0);
  });
}

test("a decision is answered at once, and a finished run keeps no action buttons", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await run.approvalPanel.getByRole("checkbox", { name: /Also allow later calls of write_file/ }).check();
  await run.approve();
  await run.expectStatus("Completed");
  await expect(page.getByRole("heading", { name: "Allowed without asking in this run" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Revoke/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Cancel (run|turn)$/ })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Allowed without asking in this run" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^(Revoke|Cancel)/ })).toHaveCount(0);
});

test("times read the same everywhere, in the viewer's zone, exact on hover", async ({
  browser,
  baseURL,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const digest = (await getView(request, runId)).pending?.turnDigest;
  await request.post(`/api/runs/${runId}/decision`, { data: { approve: true, turnDigest: digest } });
  await waitForStatus(request, runId, "COMPLETED");
  const context = await browser.newContext({
    baseURL,
    storageState: testInfo.project.use.storageState,
    timezoneId: "Asia/Tokyo",
    locale: "en-US",
  });
  try {
    const page = await context.newPage();
    const shape = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2} [AP]M GMT\+9$/;
    await page.goto(`/runs/${runId}`);
    const decided = page.getByRole("list", { name: "Decisions" }).locator("time").first();
    await expect(decided).toHaveText(shape);
    await expect(decided).toHaveAttribute("title", /\+\d{3} ms\) · \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await page.getByText(/^Event log/).click();
    await expect(page.getByRole("list", { name: "Event log" }).locator("time").first()).toHaveText(shape);
    await page.goto("/runs");
    await expect(page.getByRole("table").locator("time").first()).toHaveText(shape);
    await page.goto("/audit");
    await expect(
      page.getByRole("table", { name: "Audit rows, newest first" }).locator("time").first(),
    ).toHaveText(shape);
  } finally {
    await context.close();
  }
});

test("the playground refuses what the server would, says why Start run is off, and keeps the preset", async ({
  page,
}, testInfo) => {
  const playground = new PlaygroundPage(page);
  await playground.open("prompt-template");
  await expect(page.getByText("Valid scenario: prompt a model")).toBeVisible();
  // Survives a reload.
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Preset" })).toHaveValue("prompt-template");

  // The editor mounts after the preset is chosen: wait for its text, not for a guess of when it is there.
  await expect
    .poll(() => page.evaluate(() => document.querySelector(".cm-content")?.textContent ?? ""))
    .toContain('"endpoint": "fake"');
  await playground.editor.fill(
    JSON.stringify(
      {
        name: "nowhere",
        mcpServers: ["absent"],
        model: { kind: "openai-compatible", endpoint: "nope", prompt: "hello" },
      },
      null,
      2,
    ),
  );
  await expect(playground.problems).toContainText(
    'no model endpoint named "nope" is configured (configured: fake)',
  );
  await expect(playground.problems).toContainText('no MCP server "absent" is configured (configured:');
  await expect(playground.startButton).toBeDisabled();
  await expect(
    page.getByText(/^Start run is off until the scenario is fixed: model\.endpoint: no model endpoint/),
  ).toBeVisible();
  await expect(playground.startButton).toHaveAccessibleDescription(/Start run is off/);
  await look(page, "playground refusing an unconfigured endpoint, 1280 px", testInfo);
  await expectNoAxeViolations(page, "playground with problems");

  await page.goto("/?preset=no-such-preset");
  await expect(
    page.getByRole("status").filter({ hasText: "There is no preset named no-such-preset" }),
  ).toBeVisible();
});

test("the inbox shows the write's diff like the run page, hints only for keyboards, and an empty-looking filter", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: `inbox diff ${Date.now()}`,
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.setViewportSize(LAPTOP);
  await page.goto(`/inbox?q=${runId.slice(0, 8)}`);
  const row = page.getByRole("list", { name: "Waiting runs" }).getByRole("listitem").first();
  await expect(row.getByRole("figure", { name: /^(New file|Changes to) / })).toBeVisible();
  await expect(page.getByText("all keys")).toBeVisible();
  const tool = page.getByRole("searchbox", { name: "Tool" });
  await expect(tool).toHaveValue("");
  await expect(tool).toHaveAttribute("placeholder", "Any tool");
  expect(await tool.evaluate((input) => getComputedStyle(input, "::placeholder").fontStyle)).toBe("italic");
  await look(page, "inbox, 1280 px", testInfo);
  await expectNoAxeViolations(page, "inbox, 1280 px");

  await page.setViewportSize(PHONE);
  await expect(page.getByText("all keys")).toBeHidden();
  await look(page, "inbox, 390 px", testInfo);
});

test("Copy as curl says what each request does, with the decision and the report, and where the token comes from", async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const digest = (await getView(request, runId)).pending?.turnDigest ?? "";
  await page.goto(`/runs/${runId}`);
  await page.getByText("Copy as curl").click();
  await expect(page.getByText(/Starts a new run from this run's scenario/)).toBeVisible();
  await expect(page.getByRole("link", { name: "Your tokens" })).toBeVisible();
  await page.getByRole("button", { name: "Copy: approve this turn" }).click();
  await expect(page.getByText("Copied “approve this turn”. Set PLAYGROUND_TOKEN first.")).toBeVisible();
  const command = await page.evaluate(() => navigator.clipboard.readText());
  expect(command).toContain(`"turnDigest":"${digest}"`);
  expect(command).toContain(`/api/runs/${runId}/decision`);
  await page.getByRole("button", { name: "Copy: the report" }).click();
  // The copy lands when the clipboard has taken it, not when the click returns.
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toContain(`/api/runs/${runId}/report`);

  // Cancel run asks in the page's own dialog; keeping the run changes nothing.
  await page.getByRole("button", { name: "Cancel run" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
  await expect(dialog.getByRole("button", { name: "Keep it running" })).toBeFocused();
  await expectNoAxeViolations(page, "cancel dialog");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(new RunPage(page).status).toHaveText("Waiting for approval");
});

test("a setting the server cannot use stops it at once, named, instead of answering every request 500", async () => {
  allowFor("serverStart");
  const server = spawn(
    path.join("node_modules", ".bin", "next"),
    ["start", "-p", String(await findFreePort())],
    {
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: "",
        PGLITE_DATA_DIR: "memory://",
        PLAYGROUND_METRICS_PORT: "metrics",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  server.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  try {
    const code = await new Promise<number | null>((resolve) => server.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('PLAYGROUND_METRICS_PORT must be a port number (1 to 65535), not "metrics".');
    expect(stderr, "no stack trace").not.toMatch(/^\s+at /m);
  } finally {
    // A server that did not stop (answering 500s instead) is not left running past the test.
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
});
