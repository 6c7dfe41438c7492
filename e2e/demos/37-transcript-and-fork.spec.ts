import { expect, test } from "@playwright/test";
import { getReport, loadScenario, startRunOverApi, waitForStatus } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { RunPage } from "../pages/run-page";
import { analyzeWithAxe } from "../support/budget";

test("the transcript fits a phone in dark mode and passes axe there", async ({
  browser,
  baseURL,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, loadScenario("denied-write-invalidates-rest.json"));
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const digest = (await (await request.get(`/api/runs/${runId}/view`)).json()).pending.turnDigest;
  const denied = await request.post(`/api/runs/${runId}/decision`, {
    data: {
      approve: false,
      turnDigest: digest,
      reason: "a reply long enough to wrap on a phone instead of widening the page",
    },
  });
  expect(denied.ok()).toBe(true);
  await waitForStatus(request, runId, "COMPLETED");
  const context = await browser.newContext({
    baseURL,
    storageState: testInfo.project.use.storageState,
    viewport: { width: 390, height: 844 },
    colorScheme: "dark",
  });
  try {
    const page = await context.newPage();
    await page.goto(`/runs/${runId}`);
    await page.getByRole("tab", { name: "Transcript" }).click();
    const transcript = page.getByRole("list", { name: "Transcript" });
    await expect(transcript.getByRole("blockquote", { name: "Reply to the model" })).toContainText(
      "wrap on a phone",
    );
    await transcript.getByText("Arguments").first().click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect((await analyzeWithAxe(page)).violations.map((violation) => violation.id)).toEqual([]);
    await new RunPage(page).screenshot("the transcript on a phone, dark", testInfo);
  } finally {
    await context.close();
  }
});

test("a finished run reads as a conversation, and a fork from its first step under another cap compares with it", async ({
  page,
  request,
}, testInfo) => {
  const original = await new PlaygroundPage(page).startPreset("denied-write-invalidates-rest");
  await original.expectStatus("Waiting for approval");
  await original.deny("keep the users file");
  await original.expectStatus("Completed");
  const originalId = original.runId;

  // The transcript is a tab beside the plan, reached from the keyboard as tabs are.
  const tabs = page.getByRole("tablist", { name: "How to show the run" });
  const planTab = tabs.getByRole("tab", { name: "Plan" });
  await expect(planTab).toHaveAttribute("aria-selected", "true");
  await planTab.focus();
  await page.keyboard.press("ArrowRight");
  const transcriptTab = tabs.getByRole("tab", { name: "Transcript" });
  await expect(transcriptTab).toBeFocused();
  await expect(transcriptTab).toHaveAttribute("aria-selected", "true");
  const transcript = page
    .getByRole("tabpanel", { name: "Transcript" })
    .getByRole("list", { name: "Transcript" });
  // In order: the model's batch, the read and its result, the denial with its reply, the denied call.
  const readFile = transcript.getByRole("article", { name: "Tool read_file call 0 of step 1: ok" });
  await expect(readFile).toContainText("id,name");
  const decision = transcript.getByRole("article", { name: "Decision on step 1" });
  await expect(decision).toContainText("Denied with a reply");
  await expect(decision.getByRole("blockquote", { name: "Reply to the model" })).toHaveText(
    "keep the users file",
  );
  await expect(
    transcript.getByRole("article", { name: "Tool delete_file call 1 of step 1: denied" }),
  ).toBeVisible();
  await expect(transcript.getByRole("article", { name: "Model, step 2" })).toContainText("Asked for reply");
  const order = await transcript
    .getByRole("article")
    .evaluateAll((articles) => articles.map((article) => article.getAttribute("aria-label")));
  expect(order.slice(0, 5)).toEqual([
    "Model, step 1",
    "Tool read_file call 0 of step 1: ok",
    "Decision on step 1",
    "Tool delete_file call 1 of step 1: denied",
    "Tool list_files call 2 of step 1: invalidated",
  ]);
  expect((await analyzeWithAxe(page)).violations.map((violation) => violation.id)).toEqual([]);
  await original.screenshot("the transcript of a denied run", testInfo);

  // Fork from step 1, with a cap of 1: the same first answer is now sent back to be repaired.
  await tabs.getByRole("tab", { name: "Plan" }).click();
  await original.step(1).getByRole("link", { name: "Fork from here (step 1)" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Forked from run" })).toContainText("at step 1");
  const playground = new PlaygroundPage(page);
  await expect(playground.editor).toContainText("(fork of step 1)");
  await page.getByRole("spinbutton", { name: "Max parallel tool calls" }).fill("1");
  await expect(page.getByText("Valid scenario")).toBeVisible();
  const fork = await playground.startRun();
  await fork.expectStatus("Completed");
  expect(fork.runId).not.toBe(originalId);
  await expect(fork.step(1)).toContainText("Sent back to the model to repair");

  // The fork says where it came from, and compares with it.
  const origin = page.getByText(/^Forked from run/);
  await expect(origin).toContainText("at step 1");
  await expect(origin.getByRole("link", { name: originalId.slice(0, 8) })).toHaveAttribute(
    "href",
    `/runs/${originalId}`,
  );
  expect((await getReport(request, fork.runId)).steps[0].plan.kind).toBe("repair");
  await origin.getByRole("link", { name: "Compare with original" }).click();
  await page.waitForURL(/\/compare\?runs=/);
  const compared = page.getByRole("table", { name: "Runs side by side" });
  await expect(compared.getByRole("columnheader", { name: /fork of step 1/ })).toBeVisible();
  await expect(
    compared.getByRole("columnheader", {
      name: /^a denied barrier invalidates the calls after it Completed$/,
    }),
  ).toBeVisible();
  await expect(compared.getByRole("link")).toHaveCount(2);

  // A fork link to a step the run does not have says so instead of opening something else.
  await page.goto(`/?fork=${originalId}&step=9`);
  await expect(page.getByRole("main").getByRole("alert")).toContainText(
    `Run ${originalId} has 3 steps; fork from a step between 1 and 3, not 9.`,
  );
});
