import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "../pages/playground-page";
import { screenshotOf } from "../support/budget";

test("14 reads at a cap of 8 are drawn as two waves, and the run completes without a regeneration", async ({
  page,
}, testInfo) => {
  const playground = new PlaygroundPage(page);
  await playground.open("fourteen-reads-cap-eight");
  await expect(page.getByText("Valid scenario")).toBeVisible();
  await expect(page.getByRole("spinbutton", { name: "Max parallel tool calls" })).toHaveValue("8");
  await testInfo.attach("playground", {
    body: await screenshotOf(page),
    contentType: "image/png",
  });

  const run = await playground.startRun();
  const plan = run.plan(1);
  await expect(
    plan
      .getByRole("listitem")
      .filter({ hasText: /^Wave 1/ })
      .getByRole("listitem"),
  ).toHaveCount(8);
  await expect(
    plan
      .getByRole("listitem")
      .filter({ hasText: /^Wave 2/ })
      .getByRole("listitem"),
  ).toHaveCount(6);
  await run.expectStatus("Completed");
  for (const batchIndex of [0, 7, 8, 13]) await run.expectCallState(1, "read_file", batchIndex, "ok");
  const metrics = page.getByRole("definition").filter({ hasText: "2 of 2 completed" });
  await expect(metrics).toBeVisible();
  // One model call for the reads and one for finish: the oversized batch was not sent back.
  await expect(run.step(2)).toBeVisible();
  await expect(run.step(3)).toHaveCount(0);
  await run.screenshot("two waves, completed", testInfo);
});

test("the editor names every problem by JSON path before anything is sent", async ({ page }, testInfo) => {
  const playground = new PlaygroundPage(page);
  await playground.open("write-then-read-back");
  await playground.editor.fill(
    JSON.stringify({ name: "", model: { kind: "scripted", turns: [{ calls: [{ arguments: {} }] }] } }),
  );
  await expect(playground.problems).toContainText("model.turns[0].calls[0].name");
  await expect(playground.problems).toContainText("name");
  await expect(playground.startButton).toBeDisabled();
  // The missing name's button selects the call that lacks it, in the editor.
  await playground.problemButton("model.turns[0].calls[0].name").click();
  await expect(playground.editor).toBeFocused();
  await expect.poll(() => page.evaluate(() => window.getSelection()?.toString())).toBe('{"arguments":{}}');
  await testInfo.attach("problems", {
    body: await screenshotOf(page),
    contentType: "image/png",
  });

  await playground.editor.fill("{ not json");
  // In the problems list (Start run's reason repeats it beside the button).
  await expect(playground.problems).toContainText(/Not valid JSON/);
  await expect(playground.problemButton("")).toHaveAccessibleName("Go to line 1: (root)");
  await expect(playground.startButton).toBeDisabled();
});
