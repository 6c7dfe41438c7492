import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "./pages/playground-page";

test("cancelling the run at a barrier invalidates the pending calls and ends it CANCELLED", async ({
  page,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");

  // Cancelling a run cannot be undone, so the page asks first.
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Cancel run" }).click();
  await run.expectStatus("Cancelled");
  await expect(run.approvalPanel).toHaveCount(0);
  await run.expectCallState(1, "write_file", 0, "invalidated");
  await run.expectCallState(1, "read_file", 1, "invalidated");
  await expect(page.getByRole("button", { name: "Cancel run" })).toBeDisabled();
  await run.screenshot("cancelled at a barrier", testInfo);
});

test("cancelling the turn of a running step invalidates what has not run, and the run goes on", async ({
  page,
}) => {
  const run = await new PlaygroundPage(page).startPreset("slow-waves-for-live-view");
  await expect(run.call(1, "slow_fetch", 0)).toHaveAccessibleName(/: (running|ok)$/);

  await page.getByRole("button", { name: "Cancel turn" }).click();
  await expect(run.call(1, "slow_fetch", 11)).toHaveAccessibleName(/: invalidated$/);
  // A call the cancel stopped mid-flight reads "cancelled", in the turn's muted look, never a red error.
  for (let batchIndex = 0; batchIndex < 12; batchIndex += 1) {
    await expect(run.call(1, "slow_fetch", batchIndex)).toHaveAccessibleName(/: (ok|cancelled|invalidated)$/);
  }
  await expect(run.step(2)).toBeVisible();
  await run.expectStatus("Completed", 30_000);
});
