import { expect, test } from "@playwright/test";
import { loadScenario, startRunOverApi, waitForStatus } from "./pages/api";

test("a new waiting run appears in the inbox live; deciding it from the keyboard removes it", async ({
  page,
  request,
}, testInfo) => {
  await page.goto("/inbox");
  await expect(page.getByRole("heading", { name: "Inbox" })).toBeVisible();
  await expect(page.getByText("Live", { exact: true })).toBeVisible();

  const name = `inbox demo ${Date.now()}`;
  const approved = await startRunOverApi(request, { ...loadScenario("write-then-read-back.json"), name });
  const list = page.getByRole("list", { name: "Waiting runs" });
  const row = list.getByRole("listitem", { name: new RegExp(`^${name}: write_file, read_file, waiting`) });
  await expect(row).toBeVisible();
  await testInfo.attach("inbox with a new wait", {
    body: await page.screenshot({ fullPage: true }),
    contentType: "image/png",
  });

  // Newest first: j from nothing selects the top row; it shows a visible focus.
  await page.keyboard.press("j");
  await expect(row).toBeFocused();
  await page.keyboard.press("a");
  await expect(row).toHaveCount(0);
  await waitForStatus(request, approved, "COMPLETED");

  const deniedName = `inbox denial ${Date.now()}`;
  const denied = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: deniedName,
  });
  const deniedRow = list.getByRole("listitem", { name: new RegExp(`^${deniedName}:`) });
  await expect(deniedRow).toBeVisible();
  await deniedRow.focus();
  await page.keyboard.press("d");
  await page.keyboard.type("not today");
  await page.keyboard.press("Enter");
  await expect(deniedRow).toHaveCount(0);
  await waitForStatus(request, denied, "COMPLETED");
});
