import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "../pages/playground-page";
import { screenshotOf } from "../support/budget";

test("run a scenario under both policies and read the comparison: barriers spends one completion fewer", async ({
  page,
}, testInfo) => {
  const playground = new PlaygroundPage(page);
  await playground.open("write-then-read-back");
  await page.getByRole("button", { name: "Run under both policies" }).click();
  await page.waitForURL(/\/compare\?runs=/);
  const table = page.getByRole("table", { name: "Runs side by side" });
  await expect(table).toBeVisible();

  // Each run waits at its gate for a person: approve both, from their own pages.
  for (const policy of ["barriers", "legacy"]) {
    await table.getByRole("link", { name: new RegExp(`\\[${policy}\\]`) }).click();
    const panel = page.getByRole("region", { name: "Approval needed" });
    await panel.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("status", { name: "Run status" })).toHaveText("Completed", {
      timeout: 15_000,
    });
    await page.goBack();
  }
  const completions = table.getByRole("row", { name: /^Completions \d/ });
  await expect(completions).toHaveText(/Completions\s*2\s*3/);
  await expect(table.getByRole("row", { name: /^Completions wasted/ })).toContainText(/0\s*1/);
  await expect(page.getByRole("region", { name: /Plans of .*\[legacy\]/ })).toContainText(
    "cut after the gate",
  );
  const body = await screenshotOf(page);
  await testInfo.attach("two policies side by side", { body, contentType: "image/png" });
});
