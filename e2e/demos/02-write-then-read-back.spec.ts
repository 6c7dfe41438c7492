import { expect, test } from "@playwright/test";
import { getView } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";

test("a gated write is a barrier with its digest; once approved, the read-back shows the new content", async ({
  page,
  request,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");

  await run.expectStatus("Waiting for approval");
  await expect(run.approvalPanel).toBeVisible();
  await expect(
    run
      .plan(1)
      .getByRole("listitem")
      .filter({ hasText: /^Barrier 1/ }),
  ).toBeVisible();
  await run.expectCallState(1, "write_file", 0, "awaiting approval");
  await run.expectCallState(1, "read_file", 1, "queued");
  const { pending } = await getView(request, run.runId);
  await expect(run.approvalPanel.getByText(pending?.turnDigest ?? "(not waiting)")).toBeVisible();
  await run.screenshot("barrier with its digest", testInfo);

  await run.approve();
  await run.expectStatus("Completed");
  await expect(run.approvalPanel).toHaveCount(0);
  await run.expectCallState(1, "write_file", 0, "ok");
  await run.expectCallState(1, "read_file", 1, "ok");
  const readBack = run.call(1, "read_file", 1);
  await readBack.getByText("View").click();
  await expect(readBack.getByText('{\\"debug\\": true}')).toBeVisible();
  await run.screenshot("approved and read back", testInfo);

  // The run stays one click away from the playground.
  const runId = run.runId;
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Playground" }).click();
  const recent = page.getByRole("region", { name: "Recent runs" });
  // This run's own link: another spec's run of the same preset may be newer.
  await recent
    .getByRole("link", { name: "approval-gated write, then read-back verification" })
    .and(page.locator(`[href="/runs/${runId}"]`))
    .click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await run.expectStatus("Completed");
});
