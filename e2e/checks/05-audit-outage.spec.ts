import { expect, test } from "@playwright/test";
import { getView } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";

test("when the audit is down an approval is refused with 503; nothing runs; after it recovers, approve succeeds", async ({
  page,
  request,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");

  const armed = await request.post("/api/faults", { data: { target: "approvals", failNext: 1 } });
  expect(await armed.json()).toMatchObject({ approvals: 1 });

  await run.approve();
  await expect(run.alert).toContainText("Your approval could not be recorded");
  await expect(run.alert).toContainText("nothing ran");
  await run.expectStatus("Waiting for approval");
  await run.expectCallState(1, "write_file", 0, "awaiting approval");
  await run.expectCallState(1, "read_file", 1, "queued");
  const view = await getView(request, run.runId);
  expect(view.status).toBe("WAITING_FOR_APPROVAL");
  expect(view.log.filter((event) => event.type === "call_started")).toHaveLength(0);
  await run.screenshot("audit outage refused", testInfo);

  await run.alert.getByRole("button", { name: "Retry" }).click();
  await run.expectStatus("Completed");
  await run.expectCallState(1, "write_file", 0, "ok");
  await expect(run.alert).toHaveCount(0);
});

test("a run whose saved state cannot be read says so (422), and the run stays waiting for an operator", async ({
  page,
  request,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");
  const corrupted = await request.post("/api/faults/unreadable-state", { data: { runId: run.runId } });
  expect(corrupted.status()).toBe(200);

  await run.approve();
  await expect(run.alert).toContainText("The run's saved state is unreadable");
  await run.expectStatus("Waiting for approval");
  expect((await getView(request, run.runId)).status).toBe("WAITING_FOR_APPROVAL");
  await run.screenshot("unreadable state", testInfo);

  // The inbox lists it with the reason instead of hiding it.
  await page.goto("/inbox");
  await expect(page.getByRole("listitem", { name: /unreadable state/ }).first()).toContainText(
    "The saved state cannot be read",
  );
});
