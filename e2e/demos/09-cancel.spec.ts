import { expect, test } from "@playwright/test";
import { loadScenario, startRunOverApi } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { RunPage } from "../pages/run-page";

test("cancelling the run at a barrier invalidates the pending calls and ends it CANCELLED", async ({
  page,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");

  // Cancelling a run cannot be undone, so the page asks first, in its own dialog.
  await page.getByRole("button", { name: "Cancel run" }).click();
  const confirm = page.getByRole("dialog", { name: "Cancel this run?" });
  await expect(confirm).toContainText("cannot be resumed");
  await confirm.getByRole("button", { name: "Cancel the run" }).click();
  await run.expectStatus("Cancelled");
  await expect(run.approvalPanel).toHaveCount(0);
  await run.expectCallState(1, "write_file", 0, "invalidated");
  await run.expectCallState(1, "read_file", 1, "invalidated");
  // A finished run has nothing to cancel: no buttons at all.
  await expect(page.getByRole("button", { name: /^Cancel (run|turn)$/ })).toHaveCount(0);
  await run.screenshot("cancelled at a barrier", testInfo);
});

/**
 * The "slow waves" preset with its reads held until cancelled (a delay no test outlives), then a quick
 * second step: the first wave is still running whenever the cancel lands, however busy the machine,
 * so which calls read "cancelled" and which "invalidated" never depends on a race with the clock.
 */
function slowWavesHeldUntilCancelled() {
  const scenario = loadScenario("rules/slow-waves-for-live-view.json") as {
    tools: Array<{ name: string; delayMs?: number }>;
    model: { turns: Array<{ text?: string; calls: unknown[] }> };
  };
  const [crawl, , finish] = scenario.model.turns;
  if (!crawl || !finish) throw new Error("the slow waves preset changed its turns");
  return {
    ...scenario,
    name: "slow waves, held until cancelled",
    tools: scenario.tools.map((tool) => (tool.name === "slow_fetch" ? { ...tool, delayMs: 600_000 } : tool)),
    model: {
      ...scenario.model,
      turns: [
        crawl,
        { text: "A progress checkpoint.", calls: [{ name: "save_progress", arguments: { fetched: 0 } }] },
        finish,
      ],
    },
  };
}

test("cancelling the turn of a running step invalidates what has not run, and the run goes on", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, slowWavesHeldUntilCancelled());
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  // The first wave (calls 0–2 at a cap of 3) is running, and stays so until the cancel.
  for (const batchIndex of [0, 1, 2]) await run.expectCallState(1, "slow_fetch", batchIndex, "running");

  await page.getByRole("button", { name: "Cancel turn" }).click();
  // A call the cancel stopped mid-flight reads "cancelled", in the turn's muted look, never a red error;
  // the calls of the waves that had not started read "invalidated".
  for (const batchIndex of [0, 1, 2]) await run.expectCallState(1, "slow_fetch", batchIndex, "cancelled");
  for (let batchIndex = 3; batchIndex < 12; batchIndex += 1) {
    await run.expectCallState(1, "slow_fetch", batchIndex, "invalidated");
  }
  await expect(run.step(2)).toBeVisible();
  await run.expectStatus("Completed", 30_000);
});
