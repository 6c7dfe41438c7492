import { expect, test } from "@playwright/test";
import { getReport } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";

test("a run saved as a scenario opens in the playground and replays with the same outcomes", async ({
  page,
  request,
}, testInfo) => {
  const playground = new PlaygroundPage(page);
  const run = await playground.startPreset("write-then-read-back");
  await run.approve();
  await run.expectStatus("Completed");
  const recordedId = run.runId;

  // Save as scenario: the file a person downloads is a scenario the API accepts as it is.
  const saved = await request.get(`/api/runs/${recordedId}/scenario?download=1`);
  expect(saved.ok()).toBe(true);
  expect(saved.headers()["content-disposition"]).toContain(`run-${recordedId}-replay.json`);
  expect(await saved.json()).toMatchObject({ model: { kind: "scripted" }, decisions: [{ approve: true }] });

  await page.getByRole("link", { name: "Replay in the playground" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "as a scripted scenario that replays it" }),
  ).toBeVisible();
  await expect(playground.editor).toContainText("(replay)");
  await expect(page.getByText("Valid scenario")).toBeVisible();
  await run.screenshot("a run opened as a scenario", testInfo);
  const replay = await playground.startRun();
  await replay.approve();
  await replay.expectStatus("Completed");

  const statuses = async (runId: string) =>
    (await getReport(request, runId)).steps.map((step: { calls: Array<{ status: string }> }) =>
      step.calls.map((call) => call.status),
    );
  expect(await statuses(replay.runId)).toEqual(await statuses(recordedId));
});

test("the run page downloads its report, copies a curl command that runs it again, and shows each call's duration", async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const run = await new PlaygroundPage(page).startPreset("fourteen-reads-cap-eight");
  await run.expectStatus("Completed");
  await expect(run.call(1, "read_file", 0)).toContainText(/\d+ ms/);

  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download report" }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe(`run-${run.runId}-report.json`);

  await page.getByText("Copy as curl").click();
  await expect(page.getByText(/Starts a new run from this run's scenario/)).toBeVisible();
  await page.getByRole("button", { name: "Copy: run it again" }).click();
  await expect(page.getByText("Copied “run it again”. Set PLAYGROUND_TOKEN first.")).toBeVisible();
  const command = await page.evaluate(() => navigator.clipboard.readText());
  expect(command).toContain(`/api/runs/${run.runId}/scenario`);
  expect(command).toContain("--data-binary @-");
  // What the command pipes is a scenario the API starts as it is.
  const scenario = await (await request.get(`/api/runs/${run.runId}/scenario`)).json();
  const started = await request.post("/api/runs", { data: scenario });
  expect(started.status()).toBe(201);
});
