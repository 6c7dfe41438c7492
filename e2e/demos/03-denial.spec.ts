import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "../pages/playground-page";

test("a denial invalidates the calls after the barrier, and the model's next step shows", async ({
  page,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("denied-write-invalidates-rest");
  await run.expectStatus("Waiting for approval");
  await run.expectCallState(1, "read_file", 0, "ok");
  await run.expectCallState(1, "delete_file", 1, "awaiting approval");

  await run.deny("keep the file");
  await run.expectStatus("Completed");
  await run.expectCallState(1, "delete_file", 1, "denied");
  await run.expectCallState(1, "list_files", 2, "invalidated");
  await expect(run.step(2)).toBeVisible();
  await expect(run.step(2).getByRole("row", { name: /^reply call 0: ok/ })).toBeVisible();
  // The decision is credited to the person signed in (the suite's administrator), with their reason.
  await expect(page.getByRole("list", { name: "Decisions" })).toContainText(
    /Denied with a reply by admin .*“keep the file”/,
  );
  await run.screenshot("denied, rest invalidated, next step", testInfo);
});
