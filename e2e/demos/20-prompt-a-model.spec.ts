import { expect, test } from "@playwright/test";
import { getReport } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";

// The e2e server has one configured model endpoint, "fake": e2e/support/fake-model-server.mjs.
test("prompt a configured model: see what it was told and what each step cost, then replay the run as a script", async ({
  page,
  request,
}, testInfo) => {
  const playground = new PlaygroundPage(page);
  await playground.open();
  await page
    .getByRole("combobox", { name: "Preset" })
    .selectOption({ label: "Prompt a model (OpenAI-compatible endpoint)" });
  await expect(playground.editor).toContainText('"endpoint": "fake"');
  // Before anything is sent: what the model will be told first, with this scenario's cap.
  await page.getByText(/What the model is told first/).click();
  await expect(page.getByText(/Send at most 8 tool calls in one turn/)).toBeVisible();
  const run = await playground.startRun();

  await run.expectStatus("Waiting for approval");
  const firstStep = run.step(1);
  await expect(
    firstStep.getByRole("definition").filter({ hasText: /\d+ \(\d+ in, \d+ out\)/ }),
  ).toBeVisible();
  await firstStep.getByText(/What the model was told first/).click();
  await expect(firstStep.getByText(/Send at most 8 tool calls in one turn/)).toBeVisible();
  await run.approve();
  await run.expectStatus("Completed");
  await expect(page.getByText(/3 completions, \d+ tokens/)).toBeVisible();
  await run.screenshot("a prompted model's run, with tokens", testInfo);
  const recorded = await getReport(request, run.runId);
  expect(recorded.metrics.completions).toBe(3);
  expect(recorded.metrics.tokens.totalTokens).toBeGreaterThan(0);

  // Record, then replay: the same plans and outcomes, from the script, without the model.
  await page.getByRole("link", { name: "Replay in the playground" }).click();
  await expect(playground.editor).toContainText('"kind": "scripted"');
  await expect(page.getByRole("status").filter({ hasText: "the prompt is not sent again" })).toBeVisible();
  const replay = await playground.startRun();
  await replay.approve();
  await replay.expectStatus("Completed");
  const replayed = await getReport(request, replay.runId);
  const outcomes = (report: typeof recorded) =>
    report.steps.map(
      (step: { plan: unknown; calls: Array<{ name: string; arguments: string; status: string }> }) => ({
        plan: step.plan,
        calls: step.calls.map(({ name, arguments: args, status }) => ({ name, args, status })),
      }),
    );
  expect(outcomes(replayed)).toEqual(outcomes(recorded));
  expect(replayed.metrics.tokens).toBeNull();
});
