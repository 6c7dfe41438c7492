import { expect, test } from "@playwright/test";
import { getReport, getView } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { RunPage } from "../pages/run-page";
import { screenshotOf } from "../support/budget";

test("a stale tab's approval is refused as 'turn changed', shows the current turn, and nothing runs twice", async ({
  browser,
  page,
  request,
}, testInfo) => {
  const tabA = await new PlaygroundPage(page).startPreset("two-gates-in-one-batch");
  await tabA.expectStatus("Waiting for approval");

  // Tab B opened the same run and then lost its live stream (a laptop lid, a proxy):
  // it still shows the first barrier.
  const contextB = await browser.newContext();
  const pageB = await contextB.newPage();
  await pageB.route("**/events*", (route) => route.abort());
  await pageB.goto(`/runs/${tabA.runId}`);
  const tabB = new RunPage(pageB);
  await tabB.expectCallState(1, "write_file", 1, "awaiting approval");
  const firstDigest = (await getView(request, tabA.runId)).pending?.turnDigest;

  await tabA.approve();
  await tabA.expectCallState(1, "delete_file", 3, "awaiting approval");
  const afterA = await getView(request, tabA.runId);
  const started = afterA.log.filter((event) => event.type === "call_started").length;

  await tabB.approve();
  await expect(tabB.alert).toContainText("The turn changed");
  const current = afterA.pending?.turnDigest ?? "(not waiting)";
  expect(current).not.toBe(firstDigest);
  await expect(tabB.approvalPanel.getByText(current)).toBeVisible();
  await tabB.expectCallState(1, "delete_file", 3, "awaiting approval");
  await testInfo.attach("stale tab refused", {
    body: await screenshotOf(pageB),
    contentType: "image/png",
  });

  const afterB = await getView(request, tabA.runId);
  expect(afterB.log.filter((event) => event.type === "call_started")).toHaveLength(started);
  const report = await getReport(request, tabA.runId);
  expect(report.decisions).toHaveLength(1);
  expect(report.steps[0].calls[1]).toMatchObject({ name: "write_file", status: "ok" });
  await contextB.close();
});
